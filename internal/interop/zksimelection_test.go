package interop_test

import (
	"context"
	"errors"
	"testing"

	"github.com/zksim/zksim/election"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// The zksim election scenarios, the same as kazoo's
// (kazooelection_test.go), on the same fake through zkapi/gozk.

func newElection(t *testing.T, c zkapi.Conn, dir, id string) *election.Election {
	t.Helper()
	e, err := election.New(c, dir, election.Options{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func campaign(t *testing.T, ctx context.Context, who string, e *election.Election) *election.Leadership {
	t.Helper()
	l, err := e.Campaign(ctx)
	if err != nil {
		t.Fatalf("%s: Campaign: %v", who, err)
	}
	return l
}

// isLeaderNode matches l's node in dir.
func isLeaderNode(dir string, l *election.Leadership) func(node) bool {
	return func(n node) bool { return dir+"/"+n.Name == l.Node() && n.Owner == l.Session() }
}

// resign resigns l and checks that dir is left empty.
func resign(t *testing.T, ctx context.Context, f *fake, dir string, l *election.Leadership) {
	t.Helper()
	if err := l.Release(ctx); err != nil {
		t.Fatalf("Release: %v", err)
	}
	f.noOrphan(t, dir, "the leader's Release")
}

// TestZksimElection_LostCreateReply (scenario 1): the candidate's create is
// applied and its reply lost; queue.Join adopts the node its session owns:
// A leads, no orphan.
func TestZksimElection_LostCreateReply(t *testing.T) {
	const dir = "/elections/lost-create"
	f, ctx := scenario(t, dir)
	a := dialZksim(t, ctx, f)
	f.loseCreateReply(t, dir, a.Session().ID)
	l := campaign(t, ctx, "A after a lost create reply", newElection(t, a, dir, "a"))
	f.faultFired(t)
	f.only(t, dir, "A's node", isLeaderNode(dir, l))
	resign(t, ctx, f, dir, l)
}

// TestZksimElection_ConnLossListing (scenario 2): the connection drops on
// the listing after the create; the queue lists again once the link is
// back: A leads, no orphan.
func TestZksimElection_ConnLossListing(t *testing.T) {
	const dir = "/elections/children-loss"
	f, ctx := scenario(t, dir)
	a := dialZksim(t, ctx, f)
	fired := f.loseListing(dir, a.Session().ID)
	l := campaign(t, ctx, "A after losing its listing", newElection(t, a, dir, "a"))
	firedOnce(t, fired)
	f.only(t, dir, "A's node", isLeaderNode(dir, l))
	resign(t, ctx, f, dir, l)
}

// TestZksimElection_SessionExpiredWhileLeading (scenario 3): A leads, B is
// parked on A's node; the server expires A's session; B leads with a
// higher term. A is told: Wait and Check return ErrLost, its fenced write
// is refused, Release reports ErrLost.
func TestZksimElection_SessionExpiredWhileLeading(t *testing.T) {
	const dir = "/elections/expired-leader"
	f, ctx := scenario(t, dir)
	a, b := dialZksim(t, ctx, f), dialZksim(t, ctx, f)
	la := campaign(t, ctx, "A", newElection(t, a, dir, "a"))
	waiting := zktest.Go(t, ctx, newElection(t, b, dir, "b").Campaign)
	f.waitParked(t, ctx, b.Session().ID, dir)
	if err := f.srv.Expire(la.Session()); err != nil {
		t.Fatal(err)
	}
	lb := waiting.Receive(t, ctx, "B after A's session expired: Campaign")
	if lb.Term() <= la.Term() {
		t.Fatalf("B's term %d is not above A's %d", lb.Term(), la.Term())
	}
	if err := la.Wait(ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("A: Wait = %v, want ErrLost", err)
	}
	if err := la.Check(); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("A: Check = %v, want ErrLost", err)
	}
	if _, err := la.Fenced(ctx, zkapi.SetOp{Path: dir, Data: []byte("stale"), Version: zkapi.AnyVersion}); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("A: Fenced = %v, want ErrLost", err)
	}
	if err := la.Release(ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("A: Release = %v, want ErrLost", err)
	}
	f.only(t, dir, "B's node", isLeaderNode(dir, lb))
}

// TestZksimElection_PredecessorExpiresBeforeWatch (scenario 4): B lists
// and sees A's node; A's session expires just before B's getData on it.
// NoNode is "gone", the queue lists again, B leads; no watch is left.
func TestZksimElection_PredecessorExpiresBeforeWatch(t *testing.T) {
	const dir = "/elections/dying-predecessor"
	f, ctx := scenario(t, dir)
	a, b := dialZksim(t, ctx, f), dialZksim(t, ctx, f)
	la := campaign(t, ctx, "A", newElection(t, a, dir, "a"))
	fired := f.expireBeforeWatch(t, dir, la.Session(), b.Session().ID)
	lb := campaign(t, ctx, "B after its predecessor vanished", newElection(t, b, dir, "b"))
	f.predecessorGone(t, dir, fired, "B's node", isLeaderNode(dir, lb))
	if err := la.Wait(ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("A: Wait = %v, want ErrLost", err)
	}
}
