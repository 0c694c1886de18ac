package interop_test

import (
	"context"
	"errors"
	"fmt"
	"path"
	"testing"

	"github.com/zksim/zksim/barrier"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// The zksim double-barrier scenarios, the same as kazoo's
// (kazoodouble_test.go), on the same fake through zkapi/gozk.

// zksimMember is one member's session and handle.
type zksimMember struct {
	conn zkapi.Conn
	d    *barrier.DoubleBarrier
}

func zksimMembers(t *testing.T, ctx context.Context, f *fake, dir string, size, n int) []zksimMember {
	t.Helper()
	var ms []zksimMember
	for i := range n {
		c := dialZksim(t, ctx, f)
		d, err := barrier.NewDouble(c, dir, size, barrier.Options{ID: fmt.Sprint("m", i)})
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, zksimMember{conn: c, d: d})
	}
	return ms
}

func (m zksimMember) enter(t *testing.T, ctx context.Context) *zktest.Async[*barrier.Member] {
	return zktest.Go(t, ctx, m.d.Enter)
}

func leaveAsync(t *testing.T, ctx context.Context, m *barrier.Member) *zktest.Async[struct{}] {
	return zktest.Go(t, ctx, func(ctx context.Context) (struct{}, error) { return struct{}{}, m.Leave(ctx) })
}

// TestZksimDoubleBarrier_LostCreateReply (scenario 1): A's create of its
// member node is applied and its reply lost; queue.Join adopts the node
// its session owns. B arrives; both enter, both leave; nothing is left.
func TestZksimDoubleBarrier_LostCreateReply(t *testing.T) {
	const dir = "/doubles/lost-create"
	f, ctx := scenario(t, dir)
	ms := zksimMembers(t, ctx, f, dir, 2, 2)
	f.loseCreateReply(t, dir, ms[0].conn.Session().ID)
	ea := ms[0].enter(t, ctx)
	f.waitParked(t, ctx, ms[0].conn.Session().ID, dir)
	f.faultFired(t)
	mb := ms[1].enter(t, ctx).Receive(t, ctx, "B: Enter")
	ma := ea.Receive(t, ctx, "A: Enter")
	la := leaveAsync(t, ctx, ma)
	if err := mb.Leave(ctx); err != nil {
		t.Fatalf("B: Leave: %v", err)
	}
	la.Receive(t, ctx, "A: Leave")
	f.noOrphan(t, dir, "both left")
}

// TestZksimDoubleBarrier_DisconnectWhileEntering (scenario 2): A waits in
// Enter (a data watch on its own node) when its connection drops; B
// arrives and marks the round. A's Enter looks again after the
// reconnect (and go-zookeeper sends its watches again): both enter.
func TestZksimDoubleBarrier_DisconnectWhileEntering(t *testing.T) {
	const dir = "/doubles/disconnect"
	f, ctx := scenario(t, dir)
	ms := zksimMembers(t, ctx, f, dir, 2, 2)
	sid := ms[0].conn.Session().ID
	ea := ms[0].enter(t, ctx)
	f.waitParked(t, ctx, sid, dir)
	seq := ms[0].conn.Session().Seq
	if err := f.srv.Disconnect(sid); err != nil {
		t.Fatal(err)
	}
	if err := awaitConnectedAfter(ctx, ms[0].conn, seq); err != nil {
		t.Fatal(err)
	}
	ms[1].enter(t, ctx).Receive(t, ctx, "B: Enter")
	ea.Receive(t, ctx, "A: Enter after the reconnect")
}

// TestZksimDoubleBarrier_ExpiredWhileEntering (scenario 3): A waits in
// Enter when its session expires: Enter returns ErrLost (A's node went
// with the session; it was not counted). B and C arrive and enter.
func TestZksimDoubleBarrier_ExpiredWhileEntering(t *testing.T) {
	const dir = "/doubles/expired-entering"
	f, ctx := scenario(t, dir)
	ms := zksimMembers(t, ctx, f, dir, 2, 3)
	sid := ms[0].conn.Session().ID
	ea := ms[0].enter(t, ctx)
	f.waitParked(t, ctx, sid, dir)
	if err := f.srv.Expire(sid); err != nil {
		t.Fatal(err)
	}
	if _, err := ea.Wait(t, ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("A: Enter after its session expired = %v, want ErrLost", err)
	}
	eb := ms[1].enter(t, ctx)
	ms[2].enter(t, ctx).Receive(t, ctx, "C: Enter")
	eb.Receive(t, ctx, "B: Enter")
}

// TestZksimDoubleBarrier_ExpiredInside (scenario 4): A, B and C have
// entered a barrier of 3; C's session expires. A and B leave, not stuck.
// C is told: Check and Wait return ErrLost, and so does Leave, at once.
func TestZksimDoubleBarrier_ExpiredInside(t *testing.T) {
	const dir = "/doubles/expired-inside"
	f, ctx := scenario(t, dir)
	ms := zksimMembers(t, ctx, f, dir, 3, 3)
	var es []*zktest.Async[*barrier.Member]
	for _, m := range ms {
		es = append(es, m.enter(t, ctx))
	}
	var in []*barrier.Member
	for i, e := range es {
		in = append(in, e.Receive(t, ctx, fmt.Sprint("member ", i, ": Enter")))
	}
	if err := f.srv.Expire(in[2].Session()); err != nil {
		t.Fatal(err)
	}
	la := leaveAsync(t, ctx, in[0])
	if err := in[1].Leave(ctx); err != nil {
		t.Fatalf("B: Leave: %v", err)
	}
	la.Receive(t, ctx, "A: Leave")
	if err := in[2].Wait(ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("C: Wait = %v, want ErrLost", err)
	}
	if err := in[2].Check(); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("C: Check = %v, want ErrLost", err)
	}
	if err := in[2].Leave(ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("C: Leave = %v, want ErrLost", err)
	}
	f.noOrphan(t, dir, "every member left")
}

// TestZksimDoubleBarrier_LostDeleteReplyInLeave (scenario 5): A and B
// have entered a barrier of 2; B has not started to leave. A, the higher
// member (it deletes its node, then waits for the lowest), leaves, and
// the reply to its delete is lost. queue.Leave takes NoNode on the retry
// as done, and Leave lists again and waits on B's node: it is still
// waiting, and returns once B has left.
func TestZksimDoubleBarrier_LostDeleteReplyInLeave(t *testing.T) {
	const dir = "/doubles/lost-delete"
	f, ctx := scenario(t, dir)
	ms := zksimMembers(t, ctx, f, dir, 2, 2)
	ea, eb := ms[0].enter(t, ctx), ms[1].enter(t, ctx)
	ma, mb := ea.Receive(t, ctx, "A: Enter"), eb.Receive(t, ctx, "B: Enter")
	hi, lo := ma, mb
	if seqOf(hi.Node()) < seqOf(lo.Node()) {
		hi, lo = lo, hi
	}
	if _, err := f.srv.LoseReply(netserver.Match{Op: "delete", Path: hi.Node(), Session: hi.Session()}); err != nil {
		t.Fatal(err)
	}
	lh := leaveAsync(t, ctx, hi)
	f.waitWatch(t, ctx, hi.Session(), lo.Node(), false)
	f.faultFired(t)
	lh.Pending(t, "the higher member's Leave while the lowest is inside")
	f.only(t, dir, "the lowest member's node", func(n node) bool { return dir+"/"+n.Name == lo.Node() })
	if err := lo.Leave(ctx); err != nil {
		t.Fatalf("lowest: Leave: %v", err)
	}
	lh.Receive(t, ctx, "the higher member's Leave")
	f.noOrphan(t, dir, "both left")
}

// seqOf is the sequence number that ends a member node's name.
func seqOf(p string) string {
	b := path.Base(p)
	return b[len(b)-10:]
}
