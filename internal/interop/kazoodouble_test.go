package interop_test

import (
	"context"
	"strings"

	"github.com/zksim/zksim/internal/netserver"
	"testing"
)

// The kazoo DoubleBarrier scenarios (kazoo 2.8, recipe/barrier.py). A
// member is an ephemeral node <dir>/<uuid4 hex>; enter() waits on an
// exists watch for <dir>/ready, which the member that counts enough
// children creates; leave() deletes "ready" and runs ZooKeeper's leave
// recipe. Both retry connection loss (KazooRetry) and swallow every other
// KazooException into the participating flag.

// startMembers starts n kazoo scripts on the double barrier at dir, of
// size size.
func startMembers(t *testing.T, ctx context.Context, f *fake, dir, size string, n int) []*kazooRecipe {
	t.Helper()
	var ms []*kazooRecipe
	for range n {
		m := startRecipe(t, ctx, f, "double", dir, "--members", size)
		m.node = strings.TrimPrefix(m.Expect(t, ctx, `^node [0-9a-f]{32}$`), "node ")
		ms = append(ms, m)
	}
	return ms
}

// TestKazooDoubleBarrier_LostCreateReply (scenario 1): A's create of its
// member node is applied and its reply lost. KazooRetry runs _inner_enter
// again, whose create fails with NodeExists, which it takes for its own
// node (its name is a fixed uuid; the owner is not compared). B arrives,
// both enter and both leave; nothing is left.
func TestKazooDoubleBarrier_LostCreateReply(t *testing.T) {
	const dir = "/doubles/lost-create"
	f, ctx := scenario(t, dir)
	ms := startMembers(t, ctx, f, dir, "2", 2)
	a, b := ms[0], ms[1]
	f.loseCreateReply(t, dir, a.session)
	a.Send(t, "enter")
	f.waitWatch(t, ctx, a.session, dir+"/ready", false)
	f.faultFired(t)
	b.do(t, ctx, "enter", `^entered participating=True$`)
	a.Expect(t, ctx, `^entered participating=True$`)
	a.Send(t, "leave")
	b.do(t, ctx, "leave", `^left participating=False$`)
	a.Expect(t, ctx, `^left participating=False$`)
	f.noOrphan(t, dir, "both left")
}

// TestKazooDoubleBarrier_DisconnectWhileEntering (scenario 2): A waits in
// enter() on its exists watch for "ready" when its connection drops (the
// session lives on). On any connection loss kazoo drops its watches and
// calls each with a NONE event (_reset_watchers), which enter()'s
// callback ignores (it waits for CREATED), and it does not set the watch
// again. B arrives and creates "ready" and enters; A never does. Hang:
// A's enter() never returns, and B's leave() would wait for A's node.
func TestKazooDoubleBarrier_DisconnectWhileEntering(t *testing.T) {
	const dir = "/doubles/disconnect"
	f, ctx := scenario(t, dir)
	ms := startMembers(t, ctx, f, dir, "2", 2)
	a, b := ms[0], ms[1]
	seen := a.Sides()
	a.Send(t, "enter")
	a.WaitSide(t, ctx, seen, "listed "+dir+" 1") // A waits in ready.wait()
	f.waitWatch(t, ctx, a.session, dir+"/ready", false)
	if err := f.srv.Disconnect(a.session); err != nil {
		t.Fatal(err)
	}
	a.WaitSide(t, ctx, seen, "state SUSPENDED")
	a.WaitSide(t, ctx, seen, "state CONNECTED")
	b.do(t, ctx, "enter", `^entered participating=True$`)
	a.silent(t, ctx, "A's enter() after B made the barrier ready")
}

// TestKazooDoubleBarrier_ExpiredWhileEntering (scenario 3): A waits in
// enter() when its session expires; kazoo opens a new session and A's
// node is gone, so A is no longer counted: right. But the expiry reaches
// enter() only as a NONE event its callback ignores: enter() neither
// fails nor enters. B and C arrive and enter; A's enter() never returns.
// Hang.
func TestKazooDoubleBarrier_ExpiredWhileEntering(t *testing.T) {
	const dir = "/doubles/expired-entering"
	f, ctx := scenario(t, dir)
	ms := startMembers(t, ctx, f, dir, "2", 3)
	a, b, c := ms[0], ms[1], ms[2]
	seen := a.Sides()
	a.Send(t, "enter")
	a.WaitSide(t, ctx, seen, "listed "+dir+" 1") // A waits in ready.wait()
	f.waitWatch(t, ctx, a.session, dir+"/ready", false)
	if err := f.srv.Expire(a.session); err != nil {
		t.Fatal(err)
	}
	a.expired(t, ctx, seen)
	b.Send(t, "enter")
	c.do(t, ctx, "enter", `^entered participating=True$`)
	b.Expect(t, ctx, `^entered participating=True$`)
	a.silent(t, ctx, "A's enter() after B and C entered")
}

// TestKazooDoubleBarrier_ExpiredInside (scenario 4): A, B and C have
// entered a barrier of 3; C's session expires. A and B leave: C's node
// went with its session, so they are not stuck. C is not told: it still
// says participating=True; its leave() then finds its node gone, swallows
// the NoNodeError and returns as if it had left with the others.
func TestKazooDoubleBarrier_ExpiredInside(t *testing.T) {
	const dir = "/doubles/expired-inside"
	f, ctx := scenario(t, dir)
	ms := startMembers(t, ctx, f, dir, "3", 3)
	a, b, c := ms[0], ms[1], ms[2]
	a.Send(t, "enter")
	b.Send(t, "enter")
	c.do(t, ctx, "enter", `^entered participating=True$`)
	a.Expect(t, ctx, `^entered participating=True$`)
	b.Expect(t, ctx, `^entered participating=True$`)
	seen := c.Sides()
	if err := f.srv.Expire(c.session); err != nil {
		t.Fatal(err)
	}
	c.expired(t, ctx, seen)
	a.Send(t, "leave")
	b.do(t, ctx, "leave", `^left participating=False$`)
	a.Expect(t, ctx, `^left participating=False$`)
	c.do(t, ctx, "check", `^check participating=True node=[0-9a-f]{32} session=0x[0-9a-f]+$`)
	c.do(t, ctx, "leave", `^left participating=False$`)
	f.noOrphan(t, dir, "every member left")
}

// TestKazooDoubleBarrier_LostDeleteReplyInLeave (scenario 5): A and B
// have entered a barrier of 2; B has not started to leave. A, whose node
// sorts after B's (so A deletes its node, then waits for B's), leaves,
// and the reply to its delete is lost. KazooRetry runs _inner_leave
// again: A's node is gone, so A is not the lowest, and it deletes its
// node again: NoNodeError, which KazooRetry does not retry; leave()
// swallows it (best-effort cleanup) and returns, with B still inside.
// Early leave: the second half of the barrier is broken.
func TestKazooDoubleBarrier_LostDeleteReplyInLeave(t *testing.T) {
	const dir = "/doubles/lost-delete"
	f, ctx := scenario(t, dir)
	ms := startMembers(t, ctx, f, dir, "2", 2)
	if ms[0].node < ms[1].node {
		ms[0], ms[1] = ms[1], ms[0]
	}
	a, b := ms[0], ms[1] // a's node sorts after b's
	a.Send(t, "enter")
	b.do(t, ctx, "enter", `^entered participating=True$`)
	a.Expect(t, ctx, `^entered participating=True$`)
	if _, err := f.srv.LoseReply(netserver.Match{Op: "delete", Path: dir + "/" + a.node, Session: a.session}); err != nil {
		t.Fatal(err)
	}
	a.do(t, ctx, "leave", `^left participating=False$`)
	f.faultFired(t)
	f.only(t, dir, "B's node, B still inside", func(n node) bool { return n.Name == b.node && n.Owner == b.session })
	b.do(t, ctx, "leave", `^left participating=False$`)
	f.noOrphan(t, dir, "both left")
}
