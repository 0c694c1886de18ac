package wire_test

import (
	"testing"

	"github.com/zksim/zksim/fakezk/machine"
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
		req machine.Request
	}{
		{wire.OpCreate, machine.Create{Path: "/a", Data: []byte("data"), Mode: zkapi.EphemeralSequential}},
		{wire.OpCreate, machine.Create{Path: "/a/b", ACL: acl}},
		{wire.OpCreateTTL, machine.Create{Path: "/t", Data: []byte("x"), Mode: zkapi.PersistentWithTTL, TTLMillis: 500}},
		{wire.OpDelete, machine.Delete{Path: "/a", Version: 3}},
		{wire.OpExists, machine.Exists{Path: "/a", Watch: true}},
		{wire.OpGetData, machine.GetData{Path: "/abc"}},
		{wire.OpSetData, machine.SetData{Path: "/a", Data: make([]byte, 300), Version: -1}},
		{wire.OpGetChildren, machine.GetChildren{Path: "/", Watch: true}},
		{wire.OpSync, machine.Sync{Path: "/s"}},
		{wire.OpGetACL, machine.GetACL{Path: "/a"}},
		{wire.OpSetACL, machine.SetACL{Path: "/a", ACL: acl, Version: 1}},
		{wire.OpSetWatches, machine.SetWatches{RelativeZxid: 9, Data: []string{"/a", "/b"}, Exist: []string{"/c"}, Child: []string{"/"}}},
		{wire.OpMulti, machine.Multi{Ops: []zkapi.Op{
			zkapi.CreateOp{Path: "/m", Data: []byte("d")}, zkapi.CreateOp{Path: "/n", ACL: acl},
			zkapi.DeleteOp{Path: "/m", Version: 2}, zkapi.SetOp{Path: "/n", Data: []byte("xy")},
			zkapi.CheckOp{Path: "/n", Version: 1},
		}}},
		{wire.OpMulti, machine.Multi{}},
	} {
		frame := wire.AppendRequest(nil, 7, tc.op, tc.req)
		if got, want := wire.FrameSize(tc.req), len(frame)-4; got != want {
			t.Errorf("%s %v: FrameSize %d, encoded %d", tc.op, tc.req, got, want)
		}
	}
}
