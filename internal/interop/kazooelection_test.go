package interop_test

import (
	"regexp"
	"testing"
)

// The kazoo Election scenarios (kazoo 2.8, recipe/election.py). An
// Election is a kazoo Lock on the election path; run(func) calls func
// while holding it. The script's leader function says "leading" and
// returns on "resign".

// TestKazooElection_LostCreateReply (scenario 1): the candidate's create
// is applied and its reply lost. As with kazoo's Lock, KazooRetry and the
// uuid prefix (_find_node) adopt the node: A leads, no orphan.
func TestKazooElection_LostCreateReply(t *testing.T) {
	const dir = "/elections/lost-create"
	f, ctx := scenario(t, dir)
	a := startRecipe(t, ctx, f, "election", dir)
	f.loseCreateReply(t, dir, a.session)
	a.do(t, ctx, "run", `^leading$`)
	f.faultFired(t)
	f.only(t, dir, "A's node", ownedBy(a.session))
	a.do(t, ctx, "resign", `^run-returned$`)
	f.noOrphan(t, dir, "A's resign")
}

// TestKazooElection_ConnLossListing (scenario 2): the connection drops on
// the getChildren after the create. KazooRetry runs the Lock's
// _inner_acquire again, which finds its node by prefix: A leads, no
// orphan.
func TestKazooElection_ConnLossListing(t *testing.T) {
	const dir = "/elections/children-loss"
	f, ctx := scenario(t, dir)
	a := startRecipe(t, ctx, f, "election", dir)
	fired := f.loseListing(dir, a.session)
	a.do(t, ctx, "run", `^leading$`)
	firedOnce(t, fired)
	f.only(t, dir, "A's node", ownedBy(a.session))
	a.do(t, ctx, "resign", `^run-returned$`)
	f.noOrphan(t, dir, "A's resign")
}

// TestKazooElection_SessionExpiredWhileLeading (scenario 3): A leads, B is
// parked on A's node. The server expires A's session; B leads. A's leader
// function is not interrupted (run only returns when it does), and the
// Lock under it still says is_acquired=True: two leaders at once, and no
// term to fence A's writes with. Only the client's listener says LOST.
func TestKazooElection_SessionExpiredWhileLeading(t *testing.T) {
	const dir = "/elections/expired-leader"
	f, ctx := scenario(t, dir)
	a := startRecipe(t, ctx, f, "election", dir)
	b := startRecipe(t, ctx, f, "election", dir)
	a.do(t, ctx, "run", `^leading$`)
	b.Send(t, "run")
	f.waitParked(t, ctx, b.session, dir)
	seen := a.Sides()
	if err := f.srv.Expire(a.session); err != nil {
		t.Fatal(err)
	}
	b.Expect(t, ctx, `^leading$`)
	a.expired(t, ctx, seen)
	line := a.do(t, ctx, "check", `^check `)
	want := regexp.MustCompile(`^check leading=True is_acquired=True node=[0-9a-f]{32}__lock__\d{10} session=0x[0-9a-f]+$`)
	if !want.MatchString(line) {
		t.Fatalf("A after its session expired, while B leads: %q; measured: %q", line, want)
	}
	a.do(t, ctx, "resign", `^run-returned$`)
	f.only(t, dir, "B's node", ownedBy(b.session))
}

// TestKazooElection_PredecessorExpiresBeforeWatch (scenario 4): B lists
// and sees A's node; A's session expires just before B's getData on it.
// kazoo's Lock catches the NoNodeError, lists again and B leads; no
// watch is left.
func TestKazooElection_PredecessorExpiresBeforeWatch(t *testing.T) {
	const dir = "/elections/dying-predecessor"
	f, ctx := scenario(t, dir)
	a := startRecipe(t, ctx, f, "election", dir)
	b := startRecipe(t, ctx, f, "election", dir)
	a.do(t, ctx, "run", `^leading$`)
	fired := f.expireBeforeWatch(t, dir, a.session, b.session)
	b.do(t, ctx, "run", `^leading$`)
	f.predecessorGone(t, dir, fired, "B's node", ownedBy(b.session))
}
