package wire

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/zksim/zksim/internal/proto"
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

// Request is one decoded client request. At most one of Body, Local and
// Code is set; none for a ping or a closeSession.
type Request struct {
	Xid int32
	Op  Op
	// Body is the request for the Machine.
	Body proto.Request
	// Local is a request the server answers itself, from the connection's
	// state and what the Machine shows.
	Local Local
	// Code, when not 0, is the result ZooKeeper answers the request with
	// without applying it: a body it cannot read (CodeMarshalling), an
	// unknown create mode or a createTTL of another mode
	// (CodeBadArguments). (TTL modes go to the Machine, which knows whether
	// extended types are on; reconfig comes as Local: whether it is refused
	// with CodeReconfigDisabled is the server's setting.) A type ZooKeeper does not know
	// (Op.Known false) comes with CodeUnimplemented.
	Code int32
	// Txn: the refusal is an error transaction and takes a zxid.
	Txn bool
	// EmptyMulti: the refusal carries an empty MultiResponse, as
	// ZooKeeper's does when it fails a multi or multiRead after starting
	// its response (AppendRefusal writes it).
	EmptyMulti bool
	// NullPath: a sync's path was jute's null, which ZooKeeper echoes.
	NullPath bool
	// MultiOps describes each op of a multi, in order.
	MultiOps []MultiOp
}

// MultiOp is what the server needs to know of one op of a multi besides
// the zkapi.Op the Machine applies.
type MultiOp struct {
	// Result is the type of the op's result in a multi that succeeds:
	// create (the path), create2 (path and Stat: a container), delete,
	// setData or check. ZooKeeper types a create's result by its mode,
	// not by the request type (MultiOperationRecord rebuilds each op).
	Result Op
	// Code, when not 0, fails the multi at this op before anything is
	// applied: an unknown create mode.
	Code int32
}

// ACL is one entry of an ACL (zookeeper.jute's ACL and Id). Creates and
// setACL carry theirs to the Machine, which checks and keeps them.
type ACL = zkapi.ACL

// reader decodes jute records from one frame. The first failure sticks:
// later reads return zero values and err says what was wrong first.
type reader struct {
	b   []byte
	off int
	err error
	// null: a path was jute's null string, which ZooKeeper's handlers
	// dereference (a NullPointerException, answered MarshallingError).
	null bool
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

// bool reads a jute boolean: any byte but 0 is true (DataInput.readBoolean).
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

// path reads a string that ZooKeeper's handler uses as a path.
func (r *reader) path(what string) string {
	start := r.off
	s := r.buffer(what)
	if r.err == nil && s == nil && r.off == start+4 {
		r.null = true
	}
	return string(s)
}

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

func (r *reader) acls() []ACL {
	n := r.count("acl", 12)
	out := make([]ACL, 0, n)
	for range n {
		out = append(out, ACL{Perms: r.int32("acl perms"), Scheme: r.string("acl scheme"), ID: r.string("acl id")})
	}
	return out
}

// DecodeConnect decodes a ConnectRequest frame. Bytes after the readOnly
// flag are ignored, as ZooKeeper ignores them.
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
// type calls for. An error means ZooKeeper would close the connection
// without a reply: a frame too short for the header, or an auth or sasl
// packet it cannot read or use (both are handled before any request
// processor).
// Any other body it cannot read is answered with CodeMarshalling and the
// connection stays open. Bytes after the body are ignored.
func DecodeRequest(frame []byte) (Request, error) {
	r := &reader{b: frame}
	req := Request{Xid: r.int32("xid"), Op: Op(r.int32("type"))}
	if r.err != nil {
		return req, r.err
	}
	switch req.Op {
	case OpPing, OpCloseSession:
		return req, nil
	case OpAuth:
		req.Local = Auth{Type: r.int32("auth type"), Scheme: r.string("auth scheme"), Data: r.buffer("auth data")}
		return req, r.err
	case OpSASL:
		req.Local = SASL{Token: r.buffer("sasl token")}
		if r.err == nil && req.Local.(SASL).Token == nil {
			// processSasl reads the null token's length: a
			// NullPointerException, and the connection closes.
			r.fail("null sasl token")
		}
		return req, r.err
	}
	if !req.Op.Known() {
		req.Code = CodeUnimplemented
		return req, nil
	}
	decodeBody(r, &req)
	switch {
	case r.err != nil:
		// Reconfig is read before its error transaction starts.
		req = Request{Xid: req.Xid, Op: req.Op, Code: CodeMarshalling, Txn: req.Op.Write() && req.Op != OpReconfig}
	case r.null:
		req = nullPath(req)
	}
	return req, nil
}

// nullPath answers a request with a null path as ZooKeeper's handlers do:
// most dereference it (MarshallingError); PathUtils.validatePath refuses
// it (BadArguments); sync echoes it; a multi dereferences it in
// getPendingChanges, before its transaction starts and after its response
// has.
func nullPath(req Request) Request {
	out := Request{Xid: req.Xid, Op: req.Op, Code: CodeMarshalling, Txn: req.Op.Write()}
	switch req.Op {
	case OpSync:
		req.NullPath = true
		return req
	case OpSetData, OpCheck, OpSetACL:
		out.Code = CodeBadArguments
	case OpMulti:
		out.Txn, out.EmptyMulti = false, true
	}
	return out
}

// decodeBody decodes the body of a request of a known type other than
// ping, closeSession, auth and sasl.
func decodeBody(r *reader, req *Request) {
	switch req.Op {
	case OpCreate, OpCreate2, OpCreateContainer, OpCreateTTL:
		c, code := decodeCreate(r, req.Op)
		req.Body = c
		refuse(req, code)
	case OpMulti:
		req.Body, req.MultiOps = decodeMulti(r)
		if req.MultiOps == nil && req.Body == nil {
			refuse(req, CodeMarshalling)
		}
	case OpSetWatches, OpSetWatches2:
		req.Body = decodeSetWatches(r, req.Op == OpSetWatches2)
	case OpMultiRead:
		m, writes := decodeMultiRead(r)
		if writes {
			// FinalRequestProcessor reads the ops, starts a MultiResponse
			// and fails on the first: not a read.
			req.Code, req.EmptyMulti = CodeMarshalling, true
		} else {
			req.Local = m
		}
	case OpDeleteContainer:
		// PrepRequestProcessor takes the whole raw frame, header and all,
		// for the path, which then has NUL bytes: BadArguments, always.
		refuse(req, CodeBadArguments)
	case OpReconfig:
		req.Local = Reconfig{
			Joining: r.buffer("joiningServers"), Leaving: r.buffer("leavingServers"),
			NewMembers: r.buffer("newMembers"), CurConfigID: r.int64("curConfigId"),
		}
	case OpCreateSession:
		// PrepRequestProcessor reads a timeout from the body; without one
		// the request fails.
		if len(r.b)-r.off < 4 {
			refuse(req, CodeMarshalling)
		} else {
			req.Local = CreateSession{TimeoutMs: r.int32("timeOut")}
		}
	default:
		if body := decodeOne(r, req.Op); body != nil {
			req.Body = body
		} else {
			req.Local = decodeLocal(r, req.Op)
		}
		if lookupNUL(req.Body) {
			// getData, getChildren and getACL look the path up as it is:
			// no node has a NUL in its path.
			req.Body, req.Code = nil, int32(-101)
		}
	}
}

func lookupNUL(body proto.Request) bool {
	switch b := body.(type) {
	case proto.GetData:
		return strings.IndexByte(b.Path, 0) >= 0
	case proto.GetChildren:
		return strings.IndexByte(b.Path, 0) >= 0
	case proto.GetACL:
		return strings.IndexByte(b.Path, 0) >= 0
	}
	return false
}

func refuse(req *Request, code int32) {
	if code != 0 {
		req.Body, req.MultiOps = nil, nil
		req.Code, req.Txn = code, req.Op.Write()
	}
}

// decodeOne decodes the body of a request the Machine serves, or returns
// nil for a type it does not serve.
func decodeOne(r *reader, op Op) proto.Request {
	switch op {
	case OpDelete:
		return proto.Delete{Path: r.path("path"), Version: r.int32("version")}
	case OpExists:
		return proto.Exists{Path: r.path("path"), Watch: r.bool("watch")}
	case OpGetData:
		return proto.GetData{Path: r.path("path"), Watch: r.bool("watch")}
	case OpSetData:
		return proto.SetData{Path: r.path("path"), Data: r.buffer("data"), Version: r.int32("version")}
	case OpGetChildren, OpGetChildren2:
		return proto.GetChildren{Path: r.path("path"), Watch: r.bool("watch")}
	case OpSync:
		return proto.Sync{Path: r.path("path")}
	case OpGetACL:
		return proto.GetACL{Path: r.path("path")}
	case OpSetACL:
		return proto.SetACL{Path: r.path("path"), ACL: r.acls(), Version: r.int32("version")}
	case OpCheck:
		return proto.Multi{Ops: []zkapi.Op{zkapi.CheckOp{Path: r.path("path"), Version: r.int32("version")}}}
	}
	return nil
}

// decodeCreate decodes a CreateRequest, or a CreateTTLRequest (whose ttl
// follows the flags), in PrepRequestProcessor's order of checks: the mode
// (an unknown flag is BadArguments), then, for a TTL mode, whether TTL
// nodes are on and the TTL (left to the Machine), or, for a createTTL of
// another mode, BadArguments. A create or create2 with a TTL mode carries
// ZooKeeper's ttl for them, -1, which the Machine refuses. A
// createContainer request makes a container whatever its flags say,
// unless they are a TTL mode.
func decodeCreate(r *reader, op Op) (proto.Create, int32) {
	c := proto.Create{Path: r.path("path"), Data: r.buffer("data"), ACL: r.acls()}
	flags := r.int32("flags")
	ttl := int64(-1)
	if op == OpCreateTTL {
		ttl = r.int64("ttl")
	}
	mode, code := createMode(flags, op == OpCreateTTL)
	if code != 0 {
		return c, code
	}
	c.Mode = mode
	switch {
	case proto.IsTTL(mode):
		c.TTLMillis = ttl
	case op == OpCreateContainer:
		c.Mode = zkapi.Container
	}
	return c, 0
}

// createMode is CreateMode.fromFlag and validateCreateRequest's check of
// a createTTL (ttlOp) of a mode that takes no TTL.
func createMode(flags int32, ttlOp bool) (zkapi.CreateMode, int32) {
	switch mode := zkapi.CreateMode(flags); {
	case !proto.ValidMode(mode):
		return 0, CodeBadArguments
	case ttlOp && !proto.IsTTL(mode):
		// EphemeralType.validateTTL refuses a ttl >= 0 with a plain mode.
		// With a negative ttl the real 3.8.0 server logs a createTTL
		// transaction that kills it when applied ("ttl must be
		// positive"); the fake refuses that one the same way.
		return 0, CodeBadArguments
	default:
		return mode, 0
	}
}

func decodeSetWatches(r *reader, v2 bool) proto.SetWatches {
	sw := proto.SetWatches{
		RelativeZxid: r.int64("relativeZxid"),
		Data:         r.strings("dataWatches"),
		Exist:        r.strings("existWatches"),
		Child:        r.strings("childWatches"),
	}
	if v2 {
		sw.Persistent = r.strings("persistentWatches")
		sw.PersistentRecursive = r.strings("persistentRecursiveWatches")
	}
	return sw
}

// decodeMulti decodes a MultiOperationRecord: (MultiHeader, op) pairs up
// to a header with done set. A read op (multi takes only writes) or an
// unknown type makes the whole request unreadable: nil, nil.
func decodeMulti(r *reader) (proto.Request, []MultiOp) {
	m := proto.Multi{Ops: []zkapi.Op{}}
	ops := []MultiOp{}
	for r.err == nil {
		typ, done := Op(r.int32("multi type")), r.bool("multi done")
		r.int32("multi err")
		if done || r.err != nil {
			break
		}
		op, info, ok := decodeMultiOp(r, typ)
		if !ok {
			return nil, nil
		}
		m.Ops = append(m.Ops, op)
		ops = append(ops, info)
	}
	return m, ops
}

func decodeMultiOp(r *reader, typ Op) (zkapi.Op, MultiOp, bool) {
	switch typ {
	case OpCreate, OpCreate2, OpCreateContainer, OpCreateTTL:
		return decodeMultiCreate(r, typ)
	case OpDelete:
		return zkapi.DeleteOp{Path: r.path("path"), Version: r.int32("version")}, MultiOp{Result: OpDelete}, true
	case OpSetData:
		return zkapi.SetOp{Path: r.path("path"), Data: r.buffer("data"), Version: r.int32("version")}, MultiOp{Result: OpSetData}, true
	case OpCheck:
		return zkapi.CheckOp{Path: r.path("path"), Version: r.int32("version")}, MultiOp{Result: OpCheck}, true
	}
	return nil, MultiOp{}, false
}

// decodeMultiCreate: inside a multi a create's type follows its flags
// (Op.create): a container or TTL node answers as create2, anything else
// as create, and createTTL's ttl matters only for a TTL mode. A TTL mode
// under a plain create header becomes a TTL op holding a CreateRequest,
// which PrepRequestProcessor fails to cast: the whole multi is unreadable.
func decodeMultiCreate(r *reader, typ Op) (zkapi.Op, MultiOp, bool) {
	path, data := r.path("path"), r.buffer("data")
	acl := r.acls()
	flags := r.int32("flags")
	ttl := int64(0)
	if typ == OpCreateTTL {
		ttl = r.int64("ttl")
	} else if proto.IsTTL(zkapi.CreateMode(flags)) {
		return nil, MultiOp{}, false
	}
	info := MultiOp{Result: OpCreate}
	mode, code := createMode(flags, false)
	info.Code = code
	op := zkapi.CreateOp{Path: path, Data: data, Mode: mode, ACL: acl}
	if mode == zkapi.Container || proto.IsTTL(mode) {
		info.Result = OpCreate2
	}
	if proto.IsTTL(mode) {
		op.TTLMillis = ttl
	}
	return op, info, true
}
