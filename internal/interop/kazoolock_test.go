package interop_test

import (
	"regexp"
	"testing"
)

// TestKazooLock_LostCreateReply (scenario 1): the create of the lock node
// is applied and its reply lost. kazoo's acquire retries _inner_acquire
// through ConnectionLoss (KazooRetry), and since create_tried is set it
// first looks for a child starting with its uuid prefix (_find_node,
// recipe/lock.py): it adopts its node and acquires; no orphan.
func TestKazooLock_LostCreateReply(t *testing.T) {
	const dir = "/locks/lost-create"
	f, ctx := scenario(t, dir)
	a := startKazoo(t, ctx, f, dir)
	f.loseCreateReply(t, dir, a.session)
	name := a.acquired(t, ctx, "A after a lost create reply")
	f.faultFired(t)
	f.only(t, dir, "A's node "+name, func(n node) bool { return n.Name == name && n.Owner == a.session })
	a.releaseAndHandOver(t, ctx, f, dir)
}

// TestKazooLock_ConnLossListingChildren (scenario 2): the create is
// applied and answered, then the connection drops on the getChildren that
// follows. The ConnectionLoss reaches KazooRetry, which runs _inner_acquire
// again: it finds its node by prefix and acquires; no orphan.
func TestKazooLock_ConnLossListingChildren(t *testing.T) {
	const dir = "/locks/children-loss"
	f, ctx := scenario(t, dir)
	a := startKazoo(t, ctx, f, dir)
	f.loseChildren(t, dir, a.session)
	name := a.acquired(t, ctx, "A after losing its getChildren")
	f.faultFired(t)
	f.only(t, dir, "A's node "+name, func(n node) bool { return n.Name == name })
	a.releaseAndHandOver(t, ctx, f, dir)
}

// TestKazooLock_SessionExpiredWhileHolding (scenario 3): the server
// expires the holder's session; B acquires. kazoo's client reports LOST to
// its listeners and opens a new session, but the Lock is not told:
// is_acquired stays True while B holds, and release() swallows the
// NoNodeError (_inner_release) and returns True. Silent loss of the lock.
func TestKazooLock_SessionExpiredWhileHolding(t *testing.T) {
	const dir = "/locks/expired-holder"
	f, ctx := scenario(t, dir)
	a, b := startKazoo(t, ctx, f, dir), startKazoo(t, ctx, f, dir)
	node := a.acquired(t, ctx, "A")
	b.Send(t, "acquire")
	f.waitParked(t, ctx, b.session, dir)

	seen := a.Sides()
	if err := f.srv.Expire(a.session); err != nil {
		t.Fatal(err)
	}
	b.Expect(t, ctx, `^acquired `)
	a.WaitSide(t, ctx, seen, "state LOST")
	a.WaitSide(t, ctx, seen, "state CONNECTED")
	a.Send(t, "check")
	line := a.Expect(t, ctx, `^check `)
	want := regexp.MustCompile(`^check is_acquired=True node=` + regexp.QuoteMeta(node) + ` session=0x[0-9a-f]+$`)
	if !want.MatchString(line) {
		t.Fatalf("A after its session expired, while B holds: %q; measured: %q", line, want)
	}
	a.Send(t, "release")
	a.Expect(t, ctx, `^released True$`)
	f.only(t, dir, "B's node", ownedBy(b.session))
}

// TestKazooLock_PredecessorExpiresBeforeWatch (scenario 4): B lists the
// directory and sees A's node; A's session expires just before B's getData
// on it. kazoo catches NoNodeError from client.get ("predecessor has
// already been deleted"), lists again and acquires.
func TestKazooLock_PredecessorExpiresBeforeWatch(t *testing.T) {
	const dir = "/locks/dying-predecessor"
	f, ctx := scenario(t, dir)
	a, b := startKazoo(t, ctx, f, dir), startKazoo(t, ctx, f, dir)
	a.acquired(t, ctx, "A")
	fired := f.expireBeforeWatch(t, dir, a.session, b.session)
	b.acquired(t, ctx, "B after its predecessor vanished")
	f.predecessorGone(t, dir, fired, "B's node", ownedBy(b.session))
}
