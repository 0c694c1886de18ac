package wire_test

import (
	"testing"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/internal/wire"
	"github.com/zksim/zksim/zkapi"
)

// FrameSize, which the clients' jute.maxbuffer rule uses without
// encoding anything, is the length of the frame the encoder writes (less
// its 4-byte length prefix) for every request a client sends.
func TestFrameSize_IsTheEncodedLength(t *testing.T) {
	acl := []zkapi.ACL{{Perms: zkapi.PermRead, Scheme: "digest", ID: "u:abc="}, {Perms: zkapi.PermAll, Scheme: "world", ID: "anyone"}}
	for _, tc := range []struct {
		op  wire.Op
		req proto.Request
	}{
		{wire.OpCreate, proto.Create{Path: "/a", Data: []byte("data"), Mode: zkapi.EphemeralSequential}},
		{wire.OpCreate, proto.Create{Path: "/a/b", ACL: acl}},
		{wire.OpCreateTTL, proto.Create{Path: "/t", Data: []byte("x"), Mode: zkapi.PersistentWithTTL, TTLMillis: 500}},
		{wire.OpDelete, proto.Delete{Path: "/a", Version: 3}},
		{wire.OpExists, proto.Exists{Path: "/a", Watch: true}},
		{wire.OpGetData, proto.GetData{Path: "/abc"}},
		{wire.OpSetData, proto.SetData{Path: "/a", Data: make([]byte, 300), Version: -1}},
		{wire.OpGetChildren, proto.GetChildren{Path: "/", Watch: true}},
		{wire.OpSync, proto.Sync{Path: "/s"}},
		{wire.OpGetACL, proto.GetACL{Path: "/a"}},
		{wire.OpSetACL, proto.SetACL{Path: "/a", ACL: acl, Version: 1}},
		{wire.OpSetWatches, proto.SetWatches{RelativeZxid: 9, Data: []string{"/a", "/b"}, Exist: []string{"/c"}, Child: []string{"/"}}},
		{wire.OpMulti, proto.Multi{Ops: []zkapi.Op{
			zkapi.CreateOp{Path: "/m", Data: []byte("d")}, zkapi.CreateOp{Path: "/n", ACL: acl},
			zkapi.DeleteOp{Path: "/m", Version: 2}, zkapi.SetOp{Path: "/n", Data: []byte("xy")},
			zkapi.CheckOp{Path: "/n", Version: 1},
		}}},
		{wire.OpMulti, proto.Multi{}},
		{wire.OpAddWatch, proto.AddWatch{Path: "/w", Recursive: true}},
		{wire.OpRemoveWatches, proto.RemoveWatches{Path: "/w/x", Type: proto.WatcherData}},
		{wire.OpPing, nil},
	} {
		frame := wire.AppendRequest(nil, 7, tc.op, tc.req)
		if got, want := proto.FrameSize(tc.req), len(frame)-4; got != want {
			t.Errorf("%s %v: FrameSize %d, encoded %d", tc.op, tc.req, got, want)
		}
	}
}
