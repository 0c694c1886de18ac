package zkclient_test

import (
	"context"
	"slices"
	"testing"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/internal/zkclient"
	"github.com/zksim/zksim/zkapi"
)

// recorder is a Transport that keeps every request and answers OK.
type recorder struct{ sent []proto.Request }

func (r *recorder) Do(_ context.Context, _, _ string, req proto.Request) (proto.Reply, zkapi.Watch, error) {
	r.sent = append(r.sent, req)
	return proto.Reply{}, nil, nil
}

// TestCalls_ReusedBoxes: requests that go in the box of the last one
// are sent as made, whatever came before them, and an equal one again
// costs no allocation.
func TestCalls_ReusedBoxes(t *testing.T) {
	ctx := context.Background()
	tr := &recorder{}
	c := &zkclient.Calls{T: tr}
	c.Children(ctx, "/a")
	c.Children(ctx, "/a")
	c.ChildrenW(ctx, "/a")
	c.Children(ctx, "/b")
	c.Sync(ctx, "/b")
	c.Exists(ctx, "/b")
	c.Sync(ctx, "/b")
	c.Sync(ctx, "/a")
	want := []proto.Request{
		proto.GetChildren{Path: "/a"}, proto.GetChildren{Path: "/a"}, proto.GetChildren{Path: "/a", Watch: true},
		proto.GetChildren{Path: "/b"}, proto.Sync{Path: "/b"}, proto.Exists{Path: "/b"},
		proto.Sync{Path: "/b"}, proto.Sync{Path: "/a"},
	}
	if !slices.Equal(tr.sent, want) {
		t.Fatalf("sent %v, want %v", tr.sent, want)
	}
	tr.sent = make([]proto.Request, 0, 1000)
	if n := testing.AllocsPerRun(100, func() { c.Children(ctx, "/a") }); n != 0 {
		t.Errorf("listing the same directory again: %v allocations, want 0", n)
	}
}
