package interop_test

import (
	"context"
	"testing"

	"github.com/zksim/zksim/internal/netserver"
)

// The kazoo Barrier scenarios (kazoo 2.8, recipe/barrier.py): the barrier
// is up while its node exists; wait() sets an exists watch and waits for
// a DELETED event, with no timeout here.

// barrierUp starts a kazoo script on the barrier at p and sets the
// barrier through it, and starts a second one, the waiter.
func barrierUp(t *testing.T, ctx context.Context, f *fake, p string) (admin, waiter *kazooRecipe) {
	t.Helper()
	admin = startRecipe(t, ctx, f, "barrier", p)
	admin.do(t, ctx, "create", `^created$`)
	return admin, startRecipe(t, ctx, f, "barrier", p)
}

// TestKazooBarrier_ConnLossWhileWaiting (scenario 1): the connection drops
// on the waiter's exists call. Barrier.wait does not retry (its docstring
// warns of it): wait() raises ConnectionLoss, and the caller must know to
// call it again.
func TestKazooBarrier_ConnLossWhileWaiting(t *testing.T) {
	const p = "/barriers/conn-loss/b"
	f, ctx := scenario(t, "/barriers/conn-loss")
	admin, a := barrierUp(t, ctx, f, p)
	if _, err := f.srv.LoseRequest(netserver.Match{Op: "exists", Path: p, Session: a.session}); err != nil {
		t.Fatal(err)
	}
	a.do(t, ctx, "wait", `^error ConnectionLoss: $`)
	f.faultFired(t)
	admin.do(t, ctx, "remove", `^removed True$`)
}

// TestKazooBarrier_DisconnectWhileWaiting (scenario 2): the waiter is
// parked on the barrier when its connection drops (the session lives
// on); the barrier is removed once it has reconnected. On any connection
// loss kazoo 2.8 drops every watch it holds and calls each with an event
// of type NONE (KazooClient._session_callback: _reset_watchers), and it
// never sends setWatches on reconnecting; wait()'s callback ignores all
// but DELETED, so nothing wakes it: wait() never returns. Hang. (Checked
// by hand on a real 3.8.0 ensemble too: an exists watch's callback gets
// one NONE event when the connection drops, and nothing when the node is
// deleted after the reconnect.)
func TestKazooBarrier_DisconnectWhileWaiting(t *testing.T) {
	const p = "/barriers/disconnect/b"
	f, ctx := scenario(t, "/barriers/disconnect")
	admin, a := barrierUp(t, ctx, f, p)
	a.Send(t, "wait")
	f.waitWatch(t, ctx, a.session, p, false)
	seen := a.Sides()
	if err := f.srv.Disconnect(a.session); err != nil {
		t.Fatal(err)
	}
	a.WaitSide(t, ctx, seen, "state SUSPENDED")
	a.WaitSide(t, ctx, seen, "state CONNECTED")
	admin.do(t, ctx, "remove", `^removed True$`)
	a.silent(t, ctx, "A's wait() after the barrier was removed")
	if n := f.watchCount(); n != 0 {
		t.Fatalf("%d watches on the server; measured: none (kazoo did not set its watch again)", n)
	}
}

// TestKazooBarrier_SessionExpiredWhileWaiting (scenario 3): the waiter's
// session expires while it waits; kazoo opens a new session, and the
// barrier is then removed. On the expiry kazoo drops its watches and
// calls each with an event of type NONE (_reset_watchers), which
// wait()'s callback ignores (it waits for DELETED), and nothing sets the
// watch again: wait() never returns. Hang.
func TestKazooBarrier_SessionExpiredWhileWaiting(t *testing.T) {
	const p = "/barriers/expired-waiter/b"
	f, ctx := scenario(t, "/barriers/expired-waiter")
	admin, a := barrierUp(t, ctx, f, p)
	a.Send(t, "wait")
	f.waitWatch(t, ctx, a.session, p, false)
	seen := a.Sides()
	if err := f.srv.Expire(a.session); err != nil {
		t.Fatal(err)
	}
	a.expired(t, ctx, seen)
	admin.do(t, ctx, "remove", `^removed True$`)
	a.silent(t, ctx, "A's wait() after the barrier was removed")
}
