package interop_test

import (
	"context"
	"testing"

	"github.com/zksim/zksim/barrier"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/zkapi"
)

// The zksim single-barrier scenarios, the same as kazoo's
// (kazoobarrier_test.go), on the same fake through zkapi/gozk.

// zksimBarrierUp sets the barrier at p through one session and returns
// its handle and a second session's, the waiter's.
func zksimBarrierUp(t *testing.T, ctx context.Context, f *fake, p string) (admin, waiter *barrier.Barrier, wc zkapi.Conn) {
	t.Helper()
	admin, err := barrier.New(dialZksim(t, ctx, f), p)
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.Set(ctx); err != nil {
		t.Fatal(err)
	}
	wc = dialZksim(t, ctx, f)
	if waiter, err = barrier.New(wc, p); err != nil {
		t.Fatal(err)
	}
	return admin, waiter, wc
}

func waitBarrier(t *testing.T, ctx context.Context, b *barrier.Barrier) *zktest.Async[struct{}] {
	return zktest.Go(t, ctx, func(ctx context.Context) (struct{}, error) { return struct{}{}, b.Wait(ctx) })
}

// removeReleases removes the barrier and wants w to return nil.
func removeReleases(t *testing.T, ctx context.Context, admin *barrier.Barrier, w *zktest.Async[struct{}]) {
	t.Helper()
	if err := admin.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	w.Receive(t, ctx, "A's Wait after Remove")
}

// TestZksimBarrier_ConnLossWhileWaiting (scenario 1): the connection
// drops on the waiter's exists call; Wait waits for the link and looks
// again: it is still waiting, and Remove releases it.
func TestZksimBarrier_ConnLossWhileWaiting(t *testing.T) {
	const p = "/barriers/conn-loss/b"
	f, ctx := scenario(t, "/barriers/conn-loss")
	admin, b, wc := zksimBarrierUp(t, ctx, f, p)
	if _, err := f.srv.LoseRequest(netserver.Match{Op: "exists", Path: p, Session: wc.Session().ID}); err != nil {
		t.Fatal(err)
	}
	w := waitBarrier(t, ctx, b)
	f.waitWatch(t, ctx, wc.Session().ID, p, false)
	f.faultFired(t)
	w.Pending(t, "A's Wait on a set barrier after the connection loss")
	removeReleases(t, ctx, admin, w)
}

// TestZksimBarrier_DisconnectWhileWaiting (scenario 2): the waiter is
// parked when its connection drops; the barrier is removed once the
// session has reconnected. go-zookeeper sends its watches again
// (setWatches), and Wait also looks again after any connection loss:
// Wait returns.
func TestZksimBarrier_DisconnectWhileWaiting(t *testing.T) {
	const p = "/barriers/disconnect/b"
	f, ctx := scenario(t, "/barriers/disconnect")
	admin, b, wc := zksimBarrierUp(t, ctx, f, p)
	w := waitBarrier(t, ctx, b)
	sid := wc.Session().ID
	f.waitWatch(t, ctx, sid, p, false)
	seq := wc.Session().Seq
	if err := f.srv.Disconnect(sid); err != nil {
		t.Fatal(err)
	}
	if err := awaitConnectedAfter(ctx, wc, seq); err != nil {
		t.Fatal(err)
	}
	removeReleases(t, ctx, admin, w)
}

// TestZksimBarrier_SessionExpiredWhileWaiting (scenario 3): the waiter's
// session expires while it waits; its Conn opens a new session, on which
// Wait looks again and parks (a waiter owns nothing in the barrier, so a
// new session costs it nothing); Remove releases it.
func TestZksimBarrier_SessionExpiredWhileWaiting(t *testing.T) {
	const p = "/barriers/expired-waiter/b"
	f, ctx := scenario(t, "/barriers/expired-waiter")
	admin, b, wc := zksimBarrierUp(t, ctx, f, p)
	w := waitBarrier(t, ctx, b)
	old := wc.Session().ID
	f.waitWatch(t, ctx, old, p, false)
	seq := wc.Session().Seq
	if err := f.srv.Expire(old); err != nil {
		t.Fatal(err)
	}
	if err := awaitConnectedAfter(ctx, wc, seq); err != nil {
		t.Fatal(err)
	}
	if s := wc.Session(); s.ID == old {
		t.Fatalf("A's Conn still on session %#x after its expiry", old)
	}
	f.waitWatch(t, ctx, wc.Session().ID, p, false)
	w.Pending(t, "A's Wait on its new session")
	removeReleases(t, ctx, admin, w)
}

// awaitConnectedAfter returns once c is connected in a session snapshot
// later than seq: after a drop, connected again.
func awaitConnectedAfter(ctx context.Context, c zkapi.Conn, seq uint64) error {
	for {
		s := c.Session()
		if s.Seq > seq && s.State == zkapi.StateConnected {
			return nil
		}
		if _, err := c.WaitSession(ctx, s.Seq); err != nil {
			return err
		}
	}
}
