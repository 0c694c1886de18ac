package wire

import (
	"encoding/binary"
	"slices"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// ConnectResponse answers a ConnectRequest. A refused session (expired,
// closed, unknown or a wrong password) is answered with a zero timeout, a
// zero session id and a zeroed password, and the connection closes.
type ConnectResponse struct {
	ProtocolVersion int32
	TimeoutMs       int32
	SessionID       int64
	Passwd          []byte
	ReadOnly        bool
}

// writer appends jute records to a frame.
type writer []byte

func (w *writer) int32(v int32) { *w = binary.BigEndian.AppendUint32(*w, uint32(v)) }
func (w *writer) int64(v int64) { *w = binary.BigEndian.AppendUint64(*w, uint64(v)) }

func (w *writer) bool(v bool) {
	b := byte(0)
	if v {
		b = 1
	}
	*w = append(*w, b)
}

func (w *writer) buffer(b []byte) {
	if b == nil {
		w.int32(-1)
		return
	}
	w.int32(int32(len(b)))
	*w = append(*w, b...)
}

func (w *writer) string(s string) {
	w.int32(int32(len(s)))
	*w = append(*w, s...)
}

// strings writes a vector of strings, growing w once: a directory's
// listing of a thousand children otherwise reallocates w again and again.
func (w *writer) strings(ss []string) {
	n := 4 + 4*len(ss)
	for _, s := range ss {
		n += len(s)
	}
	*w = slices.Grow(*w, n)
	w.int32(int32(len(ss)))
	for _, s := range ss {
		w.string(s)
	}
}

func (w *writer) stat(s zkapi.Stat) {
	w.int64(s.Czxid)
	w.int64(s.Mzxid)
	w.int64(s.Ctime)
	w.int64(s.Mtime)
	w.int32(s.Version)
	w.int32(s.Cversion)
	w.int32(s.Aversion)
	w.int64(s.EphemeralOwner)
	w.int32(s.DataLength)
	w.int32(s.NumChildren)
	w.int64(s.Pzxid)
}

// frame starts a frame in dst; end fills in its length.
func frame(dst []byte) (writer, int) {
	return append(dst, 0, 0, 0, 0), len(dst)
}

func (w writer) end(start int) []byte {
	binary.BigEndian.PutUint32(w[start:], uint32(len(w)-start-4))
	return w
}

// AppendConnectResponse appends r's frame to dst; the readOnly flag goes
// only to clients that sent one.
func AppendConnectResponse(dst []byte, r ConnectResponse, withReadOnly bool) []byte {
	w, start := frame(dst)
	w.int32(r.ProtocolVersion)
	w.int32(r.TimeoutMs)
	w.int64(r.SessionID)
	w.buffer(r.Passwd)
	if withReadOnly {
		w.bool(r.ReadOnly)
	}
	return w.end(start)
}

// AppendHeader appends a reply that is a ReplyHeader alone.
func AppendHeader(dst []byte, xid int32, zxid int64, code int32) []byte {
	return AppendResponse(dst, xid, zxid, code, nil)
}

// AppendRefusal appends the reply to a request refused with req.Code:
// the header, and an empty MultiResponse if req.EmptyMulti.
func AppendRefusal(dst []byte, req Request, zxid int64) []byte {
	var body Response
	if req.EmptyMulti {
		body = MultiReadResponse{}
	}
	return AppendResponse(dst, req.Xid, zxid, req.Code, body)
}

// AppendNotification appends a watch notification: a ReplyHeader with
// XidWatch and zxid -1, as ZooKeeper 3.8 sends it (NIOServerCnxn.process
// does not carry the event's zxid), then a WatcherEvent.
func AppendNotification(dst []byte, n proto.Notification) []byte {
	w, start := frame(dst)
	w.int32(XidWatch)
	w.int64(-1)
	w.int32(0)
	w.int32(int32(n.Event.Type))
	w.int32(stateSyncConnected)
	w.string(n.Event.Path)
	return w.end(start)
}

// AppendReply appends the reply to req: a ReplyHeader carrying the reply's
// zxid and error code, then, on success, the body req's type calls for. A
// multi always carries its per-op results, with the header's code 0, as
// ZooKeeper's MultiResponse does (FinalRequestProcessor never sets the
// code of a multi).
func AppendReply(dst []byte, req Request, rep proto.Reply) []byte {
	w, start := frame(dst)
	w.int32(req.Xid)
	w.int64(rep.Zxid)
	if req.Op == OpMulti && rep.Results != nil {
		w.int32(0)
		w.multi(req.MultiOps, rep.Results)
		return w.end(start)
	}
	w.int32(proto.Code(rep.Err))
	if rep.Err == nil {
		w.body(req.Op, rep, req.NullPath)
	}
	return w.end(start)
}

func (w *writer) body(op Op, rep proto.Reply, null bool) {
	switch op {
	case OpCreate:
		w.string(rep.Path)
	case OpCreate2, OpCreateContainer, OpCreateTTL:
		w.string(rep.Path)
		w.stat(rep.Stat)
	case OpExists, OpSetData, OpSetACL:
		w.stat(rep.Stat)
	case OpGetACL:
		w.acls(rep.ACL)
		w.stat(rep.Stat)
	case OpGetData, OpReconfig:
		w.buffer(rep.Data)
		w.stat(rep.Stat)
	case OpGetChildren:
		w.strings(rep.Children)
	case OpGetChildren2:
		w.strings(rep.Children)
		w.stat(rep.Stat)
	case OpSync:
		if null {
			w.int32(-1)
		} else {
			w.string(rep.Path)
		}
	}
}

func (w *writer) multiHeader(typ Op, code int32) {
	w.int32(int32(typ))
	w.bool(false)
	w.int32(code)
}

// multiEnd is the MultiHeader that ends a MultiResponse: {-1, true, -1}.
func (w *writer) multiEnd() {
	w.int32(-1)
	w.bool(true)
	w.int32(-1)
}

// multi writes a MultiResponse: a MultiHeader and result per op, then the
// done header. After a failure every op reports as an error result, the
// ones before the failure with code 0 (DataTree.processTxn rewrites them).
func (w *writer) multi(ops []MultiOp, results []zkapi.OpResult) {
	failed := slices.ContainsFunc(results, func(r zkapi.OpResult) bool { return r.Err != nil })
	for i, res := range results {
		if failed {
			code := proto.Code(res.Err)
			w.multiHeader(opError, code)
			w.int32(code)
			continue
		}
		w.multiHeader(ops[i].Result, 0)
		w.body(ops[i].Result, proto.Reply{Path: res.Path, Stat: res.Stat}, false)
	}
	w.multiEnd()
}

// acls writes an ACL vector (getACL's answer).
func (w *writer) acls(acl []ACL) {
	w.int32(int32(len(acl)))
	for _, a := range acl {
		w.int32(a.Perms)
		w.string(a.Scheme)
		w.string(a.ID)
	}
}
