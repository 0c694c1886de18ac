package zkclient_test

import (
	"errors"
	"testing"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/internal/zkclient"
	"github.com/zksim/zksim/zkapi"
)

// TestCheckPath_SequentialOnlyForACreate: go-zookeeper v1.0.4's
// clientCheckPath lets a path end in '/' only for a sequential create
// (the server appends the sequence number); every other request, a
// plain create included, is refused with ErrBadArguments before it is
// sent, as are relative and empty names whatever the request. A multi
// is not checked by the client.
func TestCheckPath_SequentialOnlyForACreate(t *testing.T) {
	seq := func(p string) proto.Request { return proto.Create{Path: p, Mode: zkapi.EphemeralSequential} }
	plain := func(p string) proto.Request { return proto.Create{Path: p, Mode: zkapi.Persistent} }
	exists := func(p string) proto.Request { return proto.Exists{Path: p} }
	del := func(p string) proto.Request { return proto.Delete{Path: p} }
	multi := func(p string) proto.Request {
		return proto.Multi{Ops: []zkapi.Op{zkapi.DeleteOp{Path: p, Version: -1}}}
	}
	for _, tc := range []struct {
		path string
		req  func(string) proto.Request
		ok   bool
	}{
		{"/locks/l/", seq, true}, {"/locks/l/", plain, false}, {"/locks/l/", exists, false},
		{"/locks/l/", del, false}, {"/locks/l/", multi, true},
		{"/locks/l/lock-", seq, true}, {"/locks/l/lock-", plain, true}, {"/locks/l/lock-", exists, true},
		{"/locks/./l", seq, false}, {"/locks/../l", plain, false}, {"/locks//l", exists, false},
		{"/", exists, true}, {"", exists, false}, {"locks", del, false}, {"/a\x01b", seq, false},
	} {
		req := tc.req(tc.path)
		err := zkclient.CheckPath(req)
		if tc.ok != (err == nil) || err != nil && !errors.Is(err, zkapi.ErrBadArguments) {
			t.Errorf("CheckPath(%v) = %v, want ok=%v", req, err, tc.ok)
		}
	}
}
