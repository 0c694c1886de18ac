package wire

import (
	"fmt"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/zkapi"
)

// OpenACL is world:anyone with every permission (ZooDefs.Ids
// OPEN_ACL_UNSAFE), the ACL the client side of this package sends.
var OpenACL = []ACL{{Perms: 31, Scheme: "world", ID: "anyone"}}

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
// carry OpenACL. op must be one the body fits (create, create2 or
// createContainer for a Create, getChildren or getChildren2 for a
// GetChildren, check for a one-op Multi of a CheckOp, setWatches or
// setWatches2 for a SetWatches, ping or closeSession with a nil body);
// anything else panics.
func AppendRequest(dst []byte, xid int32, op Op, body fakezk.Request) []byte {
	w, start := frame(dst)
	w.int32(xid)
	w.int32(int32(op))
	if !w.request(op, body) {
		panic(fmt.Sprintf("wire: AppendRequest: %s cannot carry %v", op, body))
	}
	return w.end(start)
}

func (w *writer) request(op Op, body fakezk.Request) bool {
	switch b := body.(type) {
	case nil:
		return op == OpPing || op == OpCloseSession
	case fakezk.Create:
		w.create(b.Path, b.Data, int32(b.Mode))
		return op == OpCreate || op == OpCreate2 || op == OpCreateContainer
	case fakezk.Delete:
		w.string(b.Path)
		w.int32(b.Version)
		return op == OpDelete
	case fakezk.Exists:
		w.string(b.Path)
		w.bool(b.Watch)
		return op == OpExists
	case fakezk.GetData:
		w.string(b.Path)
		w.bool(b.Watch)
		return op == OpGetData
	case fakezk.SetData:
		w.string(b.Path)
		w.buffer(b.Data)
		w.int32(b.Version)
		return op == OpSetData
	case fakezk.GetChildren:
		w.string(b.Path)
		w.bool(b.Watch)
		return op == OpGetChildren || op == OpGetChildren2
	case fakezk.Sync:
		w.string(b.Path)
		return op == OpSync
	case fakezk.SetWatches:
		w.setWatches(b, op == OpSetWatches2)
		return op == OpSetWatches || op == OpSetWatches2
	case fakezk.Multi:
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

func oneCheck(m fakezk.Multi) (zkapi.CheckOp, bool) {
	if len(m.Ops) != 1 {
		return zkapi.CheckOp{}, false
	}
	c, ok := m.Ops[0].(zkapi.CheckOp)
	return c, ok
}

func (w *writer) create(path string, data []byte, flags int32) {
	w.string(path)
	w.buffer(data)
	w.int32(int32(len(OpenACL)))
	for _, a := range OpenACL {
		w.int32(a.Perms)
		w.string(a.Scheme)
		w.string(a.ID)
	}
	w.int32(flags)
}

func (w *writer) setWatches(sw fakezk.SetWatches, v2 bool) {
	w.int64(sw.RelativeZxid)
	w.strings(sw.Data)
	w.strings(sw.Exist)
	w.strings(sw.Child)
	if v2 {
		w.strings(nil)
		w.strings(nil)
	}
}

// multiRequest writes a MultiOperationRecord; false for an op a multi
// cannot carry.
func (w *writer) multiRequest(ops []zkapi.Op) bool {
	for _, op := range ops {
		switch o := op.(type) {
		case zkapi.CreateOp:
			w.multiHeader(OpCreate, -1)
			w.create(o.Path, o.Data, int32(o.Mode))
		case zkapi.DeleteOp:
			w.multiHeader(OpDelete, -1)
			w.string(o.Path)
			w.int32(o.Version)
		case zkapi.SetOp:
			w.multiHeader(OpSetData, -1)
			w.string(o.Path)
			w.buffer(o.Data)
			w.int32(o.Version)
		case zkapi.CheckOp:
			w.multiHeader(OpCheck, -1)
			w.string(o.Path)
			w.int32(o.Version)
		default:
			return false
		}
	}
	w.multiEnd()
	return true
}
