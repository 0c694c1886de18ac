package wire

import (
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// Local is a request the server answers itself rather than through the
// Machine: Auth, SASL, CreateSession, CheckWatches,
// RemoveWatches, GetEphemerals, GetAllChildrenNumber, AddWatch, WhoAmI or
// MultiRead.
type Local interface{ local() }

// Auth is an AuthPacket (opcode 100), answered before any request
// processor: the client's xid and zxid 0.
type Auth struct {
	Type   int32
	Scheme string
	Data   []byte
}

// SASL is a GetSASLRequest (opcode 102). A server without SASL answers an
// empty (null) token.
type SASL struct{ Token []byte }

// CreateSession is a createSession request (opcode -10) sent after the
// handshake: ZooKeeper logs a createSession transaction for the
// connection's own session and answers with a second ConnectResponse.
type CreateSession struct{ TimeoutMs int32 }

// CheckWatches is checkWatches (17).
type CheckWatches struct {
	Path string
	Type proto.WatcherType
}

// RemoveWatches is removeWatches (18).
type RemoveWatches struct {
	Path string
	Type proto.WatcherType
}

// GetEphemerals is getEphemerals (103): the session's ephemeral nodes
// whose path starts with Prefix ("" or "/" for all).
type GetEphemerals struct{ Prefix string }

// GetAllChildrenNumber is getAllChildrenNumber (104): the number of
// descendants of Path.
type GetAllChildrenNumber struct{ Path string }

// AddWatch is addWatch (106): a persistent (0) or persistent recursive (1)
// watch.
type AddWatch struct {
	Path string
	Mode int32
}

// WhoAmI is whoAmI (107).
type WhoAmI struct{}

// MultiRead is multiRead (22): getData and getChildren ops, answered one
// by one.
type MultiRead struct{ Ops []ReadOp }

// ReadOp is one op of a multiRead: getData or getChildren, no watch.
type ReadOp struct {
	Op   Op
	Path string
}

func (Auth) local()                 {}
func (CreateSession) local()        {}
func (SASL) local()                 {}
func (CheckWatches) local()         {}
func (RemoveWatches) local()        {}
func (GetEphemerals) local()        {}
func (GetAllChildrenNumber) local() {}
func (AddWatch) local()             {}
func (WhoAmI) local()               {}
func (MultiRead) local()            {}

// decodeLocal decodes the body of a request the server answers itself,
// marking the reader failed for a value ZooKeeper cannot parse (an unknown
// watcher type or watch mode throws, answered MarshallingError).
func decodeLocal(r *reader, op Op) Local {
	switch op {
	case OpCheckWatches:
		path, typ := r.path("path"), watcherType(r)
		return CheckWatches{Path: path, Type: typ}
	case OpRemoveWatches:
		// WatchManager.removeWatcher finds no watch on a null path.
		path, typ := r.string("path"), watcherType(r)
		return RemoveWatches{Path: path, Type: typ}
	case OpGetEphemerals:
		return GetEphemerals{Prefix: r.string("prefixPath")}
	case OpGetAllChildrenNumber:
		return GetAllChildrenNumber{Path: r.path("path")}
	case OpAddWatch:
		w := AddWatch{Path: r.string("path"), Mode: r.int32("mode")}
		if w.Mode != 0 && w.Mode != 1 {
			r.fail("watch mode")
		}
		return w
	case OpWhoAmI:
		return WhoAmI{}
	}
	panic("wire: decodeLocal called for " + op.String() + ", which is not a local request")
}

func watcherType(r *reader) proto.WatcherType {
	typ := proto.WatcherType(r.int32("type"))
	if typ < proto.WatcherChildren || typ > proto.WatcherAny {
		r.fail("watcher type")
	}
	return typ
}

// decodeMultiRead decodes a MultiOperationRecord for multiRead: reads and
// writes may not mix, and an unknown type is unreadable. writes: the ops
// are writes.
func decodeMultiRead(r *reader) (m MultiRead, writes bool) {
	reads, nw := 0, 0
	for r.err == nil {
		typ, done := Op(r.int32("multi type")), r.bool("multi done")
		r.int32("multi err")
		if done || r.err != nil {
			break
		}
		switch typ {
		case OpGetData, OpGetChildren:
			reads++
			m.Ops = append(m.Ops, ReadOp{Op: typ, Path: r.path("path")})
			r.bool("watch")
		default:
			if _, _, ok := decodeMultiOp(r, typ); !ok {
				r.fail("multiRead op type")
			}
			nw++
		}
		if reads > 0 && nw > 0 {
			r.fail("multiRead mixes reads and writes")
		}
	}
	return m, nw > 0
}

// ClientInfo is one identity whoAmI reports.
type ClientInfo struct {
	AuthScheme string
	User       string
}

// Response is the body of a reply to a Local request: PathsResponse,
// IntResponse, WhoAmIResponse, SASLResponse or MultiReadResponse.
type Response interface{ appendTo(w *writer) }

// PathsResponse is getEphemerals' GetEphemeralsResponse.
type PathsResponse struct{ Paths []string }

// IntResponse is getAllChildrenNumber's GetAllChildrenNumberResponse, and
// addWatch's ErrorResponse.
type IntResponse struct{ N int32 }

// WhoAmIResponse is whoAmI's WhoAmIResponse.
type WhoAmIResponse struct{ Clients []ClientInfo }

// SASLResponse is a SetSASLResponse; a nil token is jute's null.
type SASLResponse struct{ Token []byte }

// MultiReadResponse is multiRead's MultiResponse.
type MultiReadResponse struct{ Results []ReadResult }

// ReadResult is one multiRead result: getData's data and Stat,
// getChildren's children, or an error Code.
type ReadResult struct {
	Op       Op
	Code     int32
	Data     []byte
	Stat     zkapi.Stat
	Children []string
}

func (r PathsResponse) appendTo(w *writer) { w.strings(r.Paths) }
func (r IntResponse) appendTo(w *writer)   { w.int32(r.N) }
func (r SASLResponse) appendTo(w *writer)  { w.buffer(r.Token) }

func (r WhoAmIResponse) appendTo(w *writer) {
	w.int32(int32(len(r.Clients)))
	for _, c := range r.Clients {
		w.string(c.AuthScheme)
		w.string(c.User)
	}
}

func (r MultiReadResponse) appendTo(w *writer) {
	for _, res := range r.Results {
		switch {
		case res.Code != 0:
			w.multiHeader(opError, res.Code)
			w.int32(res.Code)
		case res.Op == OpGetData:
			w.multiHeader(OpGetData, 0)
			w.buffer(res.Data)
			w.stat(res.Stat)
		default:
			w.multiHeader(OpGetChildren, 0)
			w.strings(res.Children)
		}
	}
	w.multiEnd()
}

// AppendResponse appends a reply with the given header and body (nil:
// the header alone).
func AppendResponse(dst []byte, xid int32, zxid int64, code int32, body Response) []byte {
	w, start := frame(dst)
	w.int32(xid)
	w.int64(zxid)
	w.int32(code)
	if body != nil {
		body.appendTo(&w)
	}
	return w.end(start)
}
