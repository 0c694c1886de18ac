package wire_test

import (
	"testing"

	"github.com/zksim/zksim/internal/proto"

	"github.com/google/go-cmp/cmp"
	"github.com/zksim/zksim/internal/wire"
	"github.com/zksim/zksim/zkapi"
	"pgregory.net/rapid"
)

// TestAppendRequest_RoundTrip: every request a client can send for the
// Machine decodes back to itself (encode, then decode).
func TestAppendRequest_RoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		xid := rapid.Int32().Draw(t, "xid")
		op, body := genRequest(t)
		req, err := wire.DecodeRequest(wire.AppendRequest(nil, xid, op, body)[4:])
		if err != nil {
			t.Fatalf("%s %v: %v", op, body, err)
		}
		if req.Xid != xid || req.Op != op || req.Code != 0 {
			t.Fatalf("%s %v decoded as xid %d op %s code %d", op, body, req.Xid, req.Op, req.Code)
		}
		if diff := cmp.Diff(body, req.Body); diff != "" {
			t.Fatalf("%s (-sent +decoded):\n%s", op, diff)
		}
	})
}

// genACL draws an ACL as a decoder gives it back: never nil.
func genACL(t *rapid.T) []zkapi.ACL {
	return rapid.SampledFrom([][]zkapi.ACL{
		zkapi.OpenACL,
		{},
		{{Perms: zkapi.PermRead, Scheme: "digest", ID: "u1:x"}, {Perms: 0, Scheme: "ip", ID: "10.0.0.0/8"}},
	}).Draw(t, "acl")
}

func genPath(t *rapid.T, label string) string {
	return rapid.SampledFrom([]string{"/", "/a", "/a/b", "/zookeeper", "/x-0000000001", "/ü"}).Draw(t, label)
}

func genData(t *rapid.T, label string) []byte {
	switch rapid.IntRange(0, 2).Draw(t, label+" kind") {
	case 0:
		return nil
	case 1:
		return []byte{}
	}
	return rapid.SliceOfN(rapid.Byte(), 1, 40).Draw(t, label)
}

func genOp(t *rapid.T) zkapi.Op {
	path, version := genPath(t, "path"), rapid.Int32Range(-1, 3).Draw(t, "version")
	switch rapid.IntRange(0, 3).Draw(t, "op") {
	case 0:
		return zkapi.CreateOp{Path: path, Data: genData(t, "data"), Mode: zkapi.CreateMode(rapid.IntRange(0, 4).Draw(t, "mode")), ACL: genACL(t)}
	case 1:
		return zkapi.DeleteOp{Path: path, Version: version}
	case 2:
		return zkapi.SetOp{Path: path, Data: genData(t, "data"), Version: version}
	}
	return zkapi.CheckOp{Path: path, Version: version}
}

func genRequest(t *rapid.T) (wire.Op, proto.Request) {
	path, watch := genPath(t, "path"), rapid.Bool().Draw(t, "watch")
	paths := func(label string) []string {
		if rapid.Bool().Draw(t, label+" empty") {
			return nil
		}
		return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) string { return genPath(t, label) }), 1, 3).Draw(t, label)
	}
	switch rapid.IntRange(0, 11).Draw(t, "kind") {
	case 0:
		mode := zkapi.CreateMode(rapid.IntRange(0, 4).Draw(t, "mode"))
		op := rapid.SampledFrom([]wire.Op{wire.OpCreate, wire.OpCreate2}).Draw(t, "create op")
		if mode == zkapi.Container && rapid.Bool().Draw(t, "createContainer") {
			op = wire.OpCreateContainer
		}
		return op, proto.Create{Path: path, Data: genData(t, "data"), Mode: mode, ACL: genACL(t)}
	case 1:
		return wire.OpDelete, proto.Delete{Path: path, Version: rapid.Int32().Draw(t, "version")}
	case 2:
		return wire.OpExists, proto.Exists{Path: path, Watch: watch}
	case 3:
		return wire.OpGetData, proto.GetData{Path: path, Watch: watch}
	case 4:
		return wire.OpSetData, proto.SetData{Path: path, Data: genData(t, "data"), Version: rapid.Int32().Draw(t, "version")}
	case 5:
		op := rapid.SampledFrom([]wire.Op{wire.OpGetChildren, wire.OpGetChildren2}).Draw(t, "children op")
		return op, proto.GetChildren{Path: path, Watch: watch}
	case 6:
		return wire.OpSync, proto.Sync{Path: path}
	case 7:
		return wire.OpCheck, proto.Multi{Ops: []zkapi.Op{zkapi.CheckOp{Path: path, Version: rapid.Int32().Draw(t, "version")}}}
	case 9:
		return wire.OpGetACL, proto.GetACL{Path: path}
	case 10:
		return wire.OpSetACL, proto.SetACL{Path: path, ACL: genACL(t), Version: rapid.Int32().Draw(t, "version")}
	case 8:
		op := rapid.SampledFrom([]wire.Op{wire.OpSetWatches, wire.OpSetWatches2}).Draw(t, "setWatches op")
		sw := proto.SetWatches{RelativeZxid: rapid.Int64().Draw(t, "zxid"), Data: paths("data"), Exist: paths("exist"), Child: paths("child")}
		if op == wire.OpSetWatches2 {
			sw.Persistent, sw.PersistentRecursive = paths("persistent"), paths("recursive")
		}
		return op, sw
	}
	ops := rapid.SliceOfN(rapid.Custom(genOp), 0, 5).Draw(t, "ops")
	if ops == nil {
		ops = []zkapi.Op{}
	}
	return wire.OpMulti, proto.Multi{Ops: ops}
}

// TestAppendRequest_Watches: addWatch and removeWatches, which the
// server answers itself, decode back as the Local requests carrying the
// same path, mode and watcher type.
func TestAppendRequest_Watches(t *testing.T) {
	for _, tc := range []struct {
		op   wire.Op
		body proto.Request
		want wire.Local
	}{
		{wire.OpAddWatch, proto.AddWatch{Path: "/a"}, wire.AddWatch{Path: "/a", Mode: 0}},
		{wire.OpAddWatch, proto.AddWatch{Path: "/a/b", Recursive: true}, wire.AddWatch{Path: "/a/b", Mode: 1}},
		{wire.OpRemoveWatches, proto.RemoveWatches{Path: "/r", Type: proto.WatcherAny}, wire.RemoveWatches{Path: "/r", Type: proto.WatcherAny}},
		{wire.OpRemoveWatches, proto.RemoveWatches{Path: "/r", Type: proto.WatcherData}, wire.RemoveWatches{Path: "/r", Type: proto.WatcherData}},
	} {
		req, err := wire.DecodeRequest(wire.AppendRequest(nil, 9, tc.op, tc.body)[4:])
		if err != nil || req.Op != tc.op || req.Code != 0 || req.Xid != 9 {
			t.Fatalf("%v: decoded %+v, %v", tc.body, req, err)
		}
		if diff := cmp.Diff(tc.want, req.Local); diff != "" {
			t.Errorf("%v (-want +decoded):\n%s", tc.body, diff)
		}
	}
}
