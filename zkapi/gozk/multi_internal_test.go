package gozk

import (
	"errors"
	"reflect"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

func TestMultiRequest_Translation(t *testing.T) {
	tests := []struct {
		op   zkapi.Op
		want any
	}{
		{zkapi.CreateOp{Path: "/a", Data: []byte("x"), Mode: zkapi.EphemeralSequential},
			&zk.CreateRequest{Path: "/a", Data: []byte("x"), Acl: openACL, Flags: zk.FlagEphemeral | zk.FlagSequence}},
		{&zkapi.CreateOp{Path: "/a"}, &zk.CreateRequest{Path: "/a", Acl: openACL, Flags: zk.FlagPersistent}},
		{zkapi.DeleteOp{Path: "/a", Version: 3}, &zk.DeleteRequest{Path: "/a", Version: 3}},
		{zkapi.SetOp{Path: "/a", Data: []byte("y"), Version: -1}, &zk.SetDataRequest{Path: "/a", Data: []byte("y"), Version: -1}},
		{zkapi.CheckOp{Path: "/a", Version: -1}, &zk.CheckVersionRequest{Path: "/a", Version: -1}},
	}
	for _, tt := range tests {
		got, err := multiRequest(tt.op)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("multiRequest(%#v) = %#v, %v; want %#v", tt.op, got, err, tt.want)
		}
	}
}

func TestMultiRequest_Refused(t *testing.T) {
	for _, op := range []zkapi.Op{
		zkapi.CreateOp{Path: "/a", Mode: zkapi.Container},
		// go-zookeeper's Multi takes no CreateTTLRequest.
		zkapi.CreateOp{Path: "/a", Mode: zkapi.PersistentWithTTL, TTLMillis: 1000},
		zkapi.CreateOp{Path: "/a", Mode: zkapi.PersistentSequentialWithTTL, TTLMillis: 1000},
		zkapi.CreateOp{Path: "/a", TTLMillis: 1000},
		zkapi.CreateOp{Path: "/a", Mode: 9},
		(*zkapi.SetOp)(nil),
		nil,
	} {
		if _, err := multiRequest(op); !errors.Is(err, zkapi.ErrBadArguments) {
			t.Errorf("multiRequest(%#v) error = %v, want ErrBadArguments", op, err)
		}
	}
}

// The shape go-zookeeper v1.0.4 gives a failed multi, as measured against
// ZooKeeper 3.8.0: a result per op, the first error also returned.
func TestMultiResults_Failure(t *testing.T) {
	c := &Conn{}
	ops := []zkapi.Op{
		zkapi.CreateOp{Path: "/a"}, zkapi.CreateOp{Path: "/a"}, zkapi.SetOp{Path: "/b", Version: -1},
	}
	res := []zk.MultiResponse{
		{}, {Error: zk.ErrNodeExists}, {Error: errors.New("unknown error: -2")},
	}
	got, err := c.multiResults(ops, res, zk.ErrNodeExists)
	want := []zkapi.OpResult{{}, {Err: zkapi.ErrNodeExists}, {Err: zkapi.ErrRuntimeInconsistency}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("results = %v, want %v", got, want)
	}
	var opErr *proto.OpError
	if !errors.As(err, &opErr) || opErr.Path != "/a" || !errors.Is(err, zkapi.ErrNodeExists) {
		t.Errorf("error = %v, want multi /a wrapping ErrNodeExists", err)
	}
}

func TestMultiResults_OpErrorWithoutMultiError(t *testing.T) {
	c := &Conn{}
	ops := []zkapi.Op{zkapi.CheckOp{Path: "/a", Version: 1}}
	_, err := c.multiResults(ops, []zk.MultiResponse{{Error: zk.ErrBadVersion}}, nil)
	if !errors.Is(err, zkapi.ErrBadVersion) {
		t.Errorf("error = %v, want ErrBadVersion", err)
	}
}

func TestMultiResults_WholeRequestFailed(t *testing.T) {
	c := &Conn{}
	got, err := c.multiResults([]zkapi.Op{zkapi.DeleteOp{Path: "/a"}}, nil, zk.ErrConnectionClosed)
	if got != nil || !errors.Is(err, zkapi.ErrConnectionLoss) {
		t.Errorf("Multi = %v, %v; want nil, ErrConnectionLoss", got, err)
	}
	got, err = c.multiResults([]zkapi.Op{zkapi.DeleteOp{Path: "/a"}}, []zk.MultiResponse{{}, {}}, nil)
	if got != nil || !errors.Is(err, zkapi.ErrMarshalling) {
		t.Errorf("Multi with extra results = %v, %v; want nil, ErrMarshalling", got, err)
	}
}

func TestMultiResults_Success(t *testing.T) {
	c := &Conn{}
	ops := []zkapi.Op{zkapi.CreateOp{Path: "/a-"}, zkapi.SetOp{Path: "/a"}, zkapi.DeleteOp{Path: "/b"}}
	res := []zk.MultiResponse{{String: "/a-0000000001"}, {Stat: &zk.Stat{Version: 2, Mzxid: 9}}, {}}
	got, err := c.multiResults(ops, res, nil)
	want := []zkapi.OpResult{{Path: "/a-0000000001"}, {Stat: zkapi.Stat{Version: 2, Mzxid: 9}}, {}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Multi = %v, %v; want %v", got, err, want)
	}
}
