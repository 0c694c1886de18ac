package wire

import (
	"fmt"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// OpenACL is world:anyone with every permission (ZooDefs.Ids
// OPEN_ACL_UNSAFE), the ACL the client side of this package sends for a
// create without one.
var OpenACL = zkapi.OpenACL

// AppendConnect appends a ConnectRequest frame, as a client sends it: the
// readOnly flag only if HasReadOnly.
func AppendConnect(dst []byte, c ConnectRequest) []byte {
	w, start := frame(dst)
	w.int32(c.ProtocolVersion)
	w.int64(c.LastZxidSeen)
	w.int32(c.TimeoutMs)
	w.int64(c.SessionID)
	w.buffer(c.Passwd)
	if c.HasReadOnly {
		w.bool(c.ReadOnly)
	}
	return w.end(start)
}

// AppendRequest appends the frame of a request of type op carrying body,
// as a client encodes it: DecodeRequest gives back op and body. Creates
// carry their ACL (nil: OpenACL, which decodes as itself, not as nil). op
// must be one the body fits (create, create2, createContainer or
// createTTL for a Create, getACL and setACL for theirs, getChildren or
// getChildren2 for a
// GetChildren, check for a one-op Multi of a CheckOp, setWatches or
// setWatches2 for a SetWatches, addWatch for an AddWatch, removeWatches
// for a RemoveWatches, ping or closeSession with a nil body); anything
// else panics. The server answers addWatch and removeWatches itself, so
// DecodeRequest gives them back as the Local AddWatch and RemoveWatches.
func AppendRequest(dst []byte, xid int32, op Op, body proto.Request) []byte {
	w, start := frame(dst)
	w.int32(xid)
	w.int32(int32(op))
	if !w.request(op, body) {
		panic(fmt.Sprintf("wire: AppendRequest: %s cannot carry %v", op, body))
	}
	return w.end(start)
}

func (w *writer) request(op Op, body proto.Request) bool {
	switch b := body.(type) {
	case nil:
		return op == OpPing || op == OpCloseSession
	case proto.Create:
		w.create(b.Path, b.Data, b.ACL, int32(b.Mode))
		if op == OpCreateTTL {
			w.int64(b.TTLMillis)
			return true
		}
		return op == OpCreate || op == OpCreate2 || op == OpCreateContainer
	case proto.GetACL:
		w.string(b.Path)
		return op == OpGetACL
	case proto.SetACL:
		w.string(b.Path)
		w.acls(b.ACL)
		w.int32(b.Version)
		return op == OpSetACL
	case proto.Delete:
		w.string(b.Path)
		w.int32(b.Version)
		return op == OpDelete
	case proto.Exists:
		w.string(b.Path)
		w.bool(b.Watch)
		return op == OpExists
	case proto.GetData:
		w.string(b.Path)
		w.bool(b.Watch)
		return op == OpGetData
	case proto.SetData:
		w.string(b.Path)
		w.buffer(b.Data)
		w.int32(b.Version)
		return op == OpSetData
	case proto.GetChildren:
		w.string(b.Path)
		w.bool(b.Watch)
		return op == OpGetChildren || op == OpGetChildren2
	case proto.Sync:
		w.string(b.Path)
		return op == OpSync
	case proto.SetWatches:
		w.setWatches(b, op == OpSetWatches2)
		return op == OpSetWatches || op == OpSetWatches2
	case proto.AddWatch:
		w.string(b.Path)
		w.int32(watchMode(b.Recursive))
		return op == OpAddWatch
	case proto.RemoveWatches:
		w.string(b.Path)
		w.int32(int32(b.Type))
		return op == OpRemoveWatches
	case proto.Multi:
		if op == OpCheck {
			c, ok := oneCheck(b)
			w.string(c.Path)
			w.int32(c.Version)
			return ok
		}
		return op == OpMulti && w.multiRequest(b.Ops)
	}
	return false
}

// watchMode is addWatch's AddWatchMode: 0 persistent, 1 persistent
// recursive.
func watchMode(recursive bool) int32 {
	if recursive {
		return 1
	}
	return 0
}

func oneCheck(m proto.Multi) (zkapi.CheckOp, bool) {
	if len(m.Ops) != 1 {
		return zkapi.CheckOp{}, false
	}
	c, ok := m.Ops[0].(zkapi.CheckOp)
	return c, ok
}

func (w *writer) create(path string, data []byte, acl []ACL, flags int32) {
	w.string(path)
	w.buffer(data)
	if acl == nil {
		acl = OpenACL
	}
	w.acls(acl)
	w.int32(flags)
}

func (w *writer) setWatches(sw proto.SetWatches, v2 bool) {
	w.int64(sw.RelativeZxid)
	w.strings(sw.Data)
	w.strings(sw.Exist)
	w.strings(sw.Child)
	if v2 {
		w.strings(sw.Persistent)
		w.strings(sw.PersistentRecursive)
	}
}

// multiRequest writes a MultiOperationRecord, each op as the single
// request it stands for; false for an op a multi cannot carry.
func (w *writer) multiRequest(ops []zkapi.Op) bool {
	for _, op := range ops {
		code, body, ok := opRequest(op)
		if !ok {
			return false
		}
		w.multiHeader(code, -1)
		w.request(code, body)
	}
	w.multiEnd()
	return true
}

// opRequest is the type and body a multi op is written with: a check is
// written as the one-op multi that the single check request carries.
func opRequest(op zkapi.Op) (Op, proto.Request, bool) {
	switch o := op.(type) {
	case zkapi.CreateOp:
		c := proto.Create{Path: o.Path, Data: o.Data, Mode: o.Mode, TTLMillis: o.TTLMillis, ACL: o.ACL}
		if proto.IsTTL(o.Mode) {
			return OpCreateTTL, c, true
		}
		return OpCreate, c, true
	case zkapi.DeleteOp:
		return OpDelete, proto.Delete{Path: o.Path, Version: o.Version}, true
	case zkapi.SetOp:
		return OpSetData, proto.SetData{Path: o.Path, Data: o.Data, Version: o.Version}, true
	case zkapi.CheckOp:
		return OpCheck, proto.Multi{Ops: []zkapi.Op{o}}, true
	}
	return 0, nil, false
}
