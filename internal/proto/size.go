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
		return createSize(r.Path, r.Data, r.ACL, r.Mode)
	case Delete:
		return deleteSize(r.Path)
	case Exists:
		return juteString(r.Path) + 1
	case GetData:
		return juteString(r.Path) + 1
	case SetData:
		return setDataSize(r.Path, r.Data)
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
			n += createSize(o.Path, o.Data, o.ACL, o.Mode)
		case zkapi.DeleteOp:
			n += deleteSize(o.Path)
		case zkapi.SetOp:
			n += setDataSize(o.Path, o.Data)
		case zkapi.CheckOp:
			n += juteString(o.Path) + juteInt
		}
	}
	return n
}

// createSize, deleteSize and setDataSize are the bodies of a create, a
// delete and a setData, alone or in a multi: a multi's op is sized
// without boxing it into a Request.
func createSize(path string, data []byte, acl []zkapi.ACL, mode zkapi.CreateMode) int {
	n := juteString(path) + juteBytes(data) + juteACLs(acl) + juteInt
	if IsTTL(mode) { // a CreateTTLRequest: the ttl follows the flags
		n += 2 * juteInt
	}
	return n
}

func deleteSize(path string) int { return juteString(path) + juteInt }

func setDataSize(path string, data []byte) int {
	return juteString(path) + juteBytes(data) + juteInt
}
