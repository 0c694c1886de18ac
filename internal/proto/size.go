package proto

import (
	"github.com/zksim/zksim/zkapi"
)

// Jute sizes of the request bodies a client sends; the frame is the 8-byte
// request header (xid, type) plus the body. A nil ACL is world:anyone,
// what zkapi.Conn.Create sends: perms(4) + scheme("world") + id("anyone").
const (
	juteInt    = 4
	juteHeader = 2 * juteInt
	juteACL    = juteInt + (juteInt + 5) + (juteInt + 6)
	juteACLVec = juteInt + juteACL
)

func juteACLs(acl []zkapi.ACL) int {
	if acl == nil {
		return juteACLVec
	}
	n := juteInt
	for _, a := range acl {
		n += juteInt + juteString(a.Scheme) + juteString(a.ID)
	}
	return n
}

func juteString(s string) int { return juteInt + len(s) }
func juteBytes(b []byte) int  { return juteInt + len(b) }

// FrameSize is the length of req's frame on the wire, excluding the length
// prefix, as go-zookeeper encodes it; above Config.MaxFrame the server drops
// the connection.
func FrameSize(req Request) int {
	return juteHeader + bodySize(req)
}

func bodySize(req Request) int {
	switch r := req.(type) {
	case Create:
		n := juteString(r.Path) + juteBytes(r.Data) + juteACLs(r.ACL) + juteInt
		if IsTTL(r.Mode) { // a CreateTTLRequest: the ttl follows the flags
			n += 2 * juteInt
		}
		return n
	case Delete:
		return juteString(r.Path) + juteInt
	case Exists:
		return juteString(r.Path) + 1
	case GetData:
		return juteString(r.Path) + 1
	case SetData:
		return juteString(r.Path) + juteBytes(r.Data) + juteInt
	case GetChildren:
		return juteString(r.Path) + 1
	case Sync, GetACL:
		return juteString(Paths(r)[0])
	case SetACL:
		return juteString(r.Path) + juteACLs(r.ACL) + juteInt
	case AddWatch: // the mode follows the path
		return juteString(r.Path) + juteInt
	case RemoveWatches: // the watcher type follows the path
		return juteString(r.Path) + juteInt
	case AddAuth:
		return juteInt + juteString(r.Scheme) + juteBytes(r.Data)
	case Multi:
		return multiSize(r.Ops)
	case SetWatches:
		n := 8
		for _, l := range [][]string{r.Data, r.Exist, r.Child} {
			n += juteInt
			for _, p := range l {
				n += juteString(p)
			}
		}
		return n
	}
	return 0
}

// multiSize: each op is a multi header (type, done, err) and its body; a
// final header with done=true ends the list.
func multiSize(ops []zkapi.Op) int {
	const hdr = juteInt + 1 + juteInt
	n := hdr
	for _, op := range ops {
		n += hdr
		switch o := op.(type) {
		case zkapi.CreateOp:
			n += bodySize(Create{Path: o.Path, Data: o.Data, Mode: o.Mode, ACL: o.ACL})
		case zkapi.DeleteOp:
			n += bodySize(Delete{Path: o.Path})
		case zkapi.SetOp:
			n += bodySize(SetData{Path: o.Path, Data: o.Data})
		case zkapi.CheckOp:
			n += juteString(o.Path) + juteInt
		}
	}
	return n
}
