package wire

import (
	"encoding/binary"
	"fmt"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/zkapi"
)

// ConnectRequest opens or resumes a session; it is the first frame a
// client sends.
type ConnectRequest struct {
	ProtocolVersion int32
	LastZxidSeen    int64
	TimeoutMs       int32
	SessionID       int64
	Passwd          []byte
	ReadOnly        bool
	// HasReadOnly: the client sent the trailing readOnly flag, and so
	// expects one in the response (clients before 3.4 do not).
	HasReadOnly bool
}

// Request is one decoded client request.
type Request struct {
	Xid int32
	Op  Op
	// Body is the request for the Machine, or nil for ping, closeSession,
	// auth, getACL and the requests answered with Refuse.
	Body fakezk.Request
	// Refuse, when set, is the error the server answers with, without
	// applying anything: ErrUnimplemented for requests the fake does not
	// model, ErrBadArguments for an unknown create mode.
	Refuse error
	// MultiOps is each multi op's type, which shapes its result.
	MultiOps []Op
	// Path is getACL's path.
	Path string
}

// reader decodes jute records from one frame. The first failure sticks:
// later reads return zero values and err says what was wrong first.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s at byte %d of %d", ErrMalformed, what, r.off, len(r.b))
	}
}

func (r *reader) take(n int, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.off {
		r.fail(what)
		return nil
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	return p
}

func (r *reader) int32(what string) int32 {
	if p := r.take(4, what); p != nil {
		return int32(binary.BigEndian.Uint32(p))
	}
	return 0
}

func (r *reader) int64(what string) int64 {
	if p := r.take(8, what); p != nil {
		return int64(binary.BigEndian.Uint64(p))
	}
	return 0
}

func (r *reader) bool(what string) bool {
	if p := r.take(1, what); p != nil {
		return p[0] != 0
	}
	return false
}

// buffer reads a jute buffer; null (-1) reads as nil, empty as non-nil.
func (r *reader) buffer(what string) []byte {
	n := r.int32(what)
	if n == -1 || r.err != nil {
		return nil
	}
	if p := r.take(int(n), what); p != nil {
		return append([]byte{}, p...)
	}
	return nil
}

func (r *reader) string(what string) string { return string(r.buffer(what)) }

// count reads a vector's length: -1 (null) is an empty vector, and a
// count that cannot fit in the bytes left is malformed.
func (r *reader) count(what string, min int) int {
	n := r.int32(what)
	switch {
	case r.err != nil || n == -1:
		return 0
	case n < 0 || int(n) > (len(r.b)-r.off)/min:
		r.fail(what + " count")
		return 0
	}
	return int(n)
}

func (r *reader) strings(what string) []string {
	n := r.count(what, 4)
	var out []string
	for range n {
		out = append(out, r.string(what))
	}
	return out
}

// acls skips an ACL vector: the fake grants everyone everything.
func (r *reader) acls() {
	n := r.count("acl", 12)
	for range n {
		r.int32("acl perms")
		r.string("acl scheme")
		r.string("acl id")
	}
}

// DecodeConnect decodes a ConnectRequest frame.
func DecodeConnect(frame []byte) (ConnectRequest, error) {
	r := &reader{b: frame}
	c := ConnectRequest{
		ProtocolVersion: r.int32("protocolVersion"),
		LastZxidSeen:    r.int64("lastZxidSeen"),
		TimeoutMs:       r.int32("timeOut"),
		SessionID:       r.int64("sessionId"),
		Passwd:          r.buffer("passwd"),
	}
	if r.err == nil && r.off < len(frame) {
		c.ReadOnly, c.HasReadOnly = r.bool("readOnly"), true
	}
	return c, r.err
}

// DecodeRequest decodes a request frame: a RequestHeader and the body its
// type calls for. An error means the frame is malformed and the connection
// must close; a well-formed request the fake does not serve comes back
// with Refuse set.
func DecodeRequest(frame []byte) (Request, error) {
	r := &reader{b: frame}
	req := Request{Xid: r.int32("xid"), Op: Op(r.int32("type"))}
	if r.err != nil {
		return req, r.err
	}
	switch req.Op {
	case OpPing, OpCloseSession:
	case OpAuth:
		r.int32("auth type")
		r.string("auth scheme")
		r.buffer("auth data")
	case OpGetACL:
		req.Path = r.string("path")
	case OpSetWatches, OpSetWatches2:
		req.Body = decodeSetWatches(r, req.Op == OpSetWatches2)
	case OpMulti:
		req.Body, req.MultiOps, req.Refuse = decodeMulti(r)
	default:
		req.Body, req.Refuse = decodeOne(r, req.Op)
	}
	return req, r.err
}

// decodeOne decodes the body of a single (non-multi) request.
func decodeOne(r *reader, op Op) (fakezk.Request, error) {
	switch op {
	case OpCreate, OpCreate2, OpCreateContainer, OpCreateTTL:
		return decodeCreate(r, op)
	case OpDelete:
		return fakezk.Delete{Path: r.string("path"), Version: r.int32("version")}, nil
	case OpExists:
		return fakezk.Exists{Path: r.string("path"), Watch: r.bool("watch")}, nil
	case OpGetData:
		return fakezk.GetData{Path: r.string("path"), Watch: r.bool("watch")}, nil
	case OpSetData:
		return fakezk.SetData{Path: r.string("path"), Data: r.buffer("data"), Version: r.int32("version")}, nil
	case OpGetChildren, OpGetChildren2:
		return fakezk.GetChildren{Path: r.string("path"), Watch: r.bool("watch")}, nil
	case OpSync:
		return fakezk.Sync{Path: r.string("path")}, nil
	case OpCheck:
		return fakezk.Multi{Ops: []zkapi.Op{zkapi.CheckOp{Path: r.string("path"), Version: r.int32("version")}}}, nil
	}
	return nil, zkapi.ErrUnimplemented
}

// decodeCreate decodes CreateRequest (and CreateTTLRequest, whose ttl
// follows the flags). TTL nodes need the server's extended types, off by
// default, so they are refused as ZooKeeper refuses them.
func decodeCreate(r *reader, op Op) (fakezk.Request, error) {
	c := fakezk.Create{Path: r.string("path"), Data: r.buffer("data")}
	r.acls()
	flags := r.int32("flags")
	if op == OpCreateTTL {
		r.int64("ttl")
	}
	switch mode := zkapi.CreateMode(flags); {
	case op == OpCreateTTL || flags == 5 || flags == 6:
		return nil, zkapi.ErrUnimplemented
	case !mode.Valid():
		return nil, zkapi.ErrBadArguments
	default:
		c.Mode = mode
	}
	return c, nil
}

func decodeSetWatches(r *reader, v2 bool) fakezk.SetWatches {
	sw := fakezk.SetWatches{
		RelativeZxid: r.int64("relativeZxid"),
		Data:         r.strings("dataWatches"),
		Exist:        r.strings("existWatches"),
		Child:        r.strings("childWatches"),
	}
	if v2 {
		// Persistent watches come only from addWatch, which the fake
		// refuses, so a client has none to re-register.
		r.strings("persistentWatches")
		r.strings("persistentRecursiveWatches")
	}
	return sw
}

// decodeMulti decodes a MultiOperationRecord: (MultiHeader, op) pairs up
// to a header with done set.
func decodeMulti(r *reader) (fakezk.Request, []Op, error) {
	var m fakezk.Multi
	var types []Op
	var refuse error
	for r.err == nil {
		typ, done := Op(r.int32("multi type")), r.bool("multi done")
		r.int32("multi err")
		if done || r.err != nil {
			break
		}
		op, err := decodeMultiOp(r, typ)
		if err != nil && refuse == nil {
			refuse = err
		}
		m.Ops = append(m.Ops, op)
		types = append(types, typ)
	}
	return m, types, refuse
}

func decodeMultiOp(r *reader, typ Op) (zkapi.Op, error) {
	switch typ {
	case OpCreate, OpCreate2, OpCreateContainer, OpCreateTTL:
		req, err := decodeCreate(r, typ)
		if err != nil {
			return nil, err
		}
		c := req.(fakezk.Create)
		return zkapi.CreateOp{Path: c.Path, Data: c.Data, Mode: c.Mode}, nil
	case OpDelete:
		return zkapi.DeleteOp{Path: r.string("path"), Version: r.int32("version")}, nil
	case OpSetData:
		return zkapi.SetOp{Path: r.string("path"), Data: r.buffer("data"), Version: r.int32("version")}, nil
	case OpCheck:
		return zkapi.CheckOp{Path: r.string("path"), Version: r.int32("version")}, nil
	case OpGetData, OpGetChildren:
		r.string("path")
		return nil, zkapi.ErrUnimplemented
	}
	r.fail(fmt.Sprintf("multi op type %d", int32(typ)))
	return nil, nil
}
