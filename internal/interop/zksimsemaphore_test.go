package interop_test

import (
	"context"
	"errors"
	"path"
	"testing"

	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/semaphore"
	"github.com/zksim/zksim/zkapi"
)

// The zksim semaphore scenarios, the same as kazoo's
// (kazoosemaphore_test.go), on the same fake through zkapi/gozk.

func newSem(t *testing.T, c zkapi.Conn, dir string, n int, id string) *semaphore.Semaphore {
	t.Helper()
	s, err := semaphore.New(c, dir, n, semaphore.Options{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func semAcquire(t *testing.T, ctx context.Context, who string, s *semaphore.Semaphore) recipe.Lease {
	t.Helper()
	l, err := s.Acquire(ctx)
	if err != nil {
		t.Fatalf("%s: Acquire: %v", who, err)
	}
	return l
}

// isSemLease matches l's node in the semaphore dir's leases.
func isSemLease(dir string, l recipe.Lease) func(node) bool {
	return func(n node) bool { return leasesOf(dir)+"/"+n.Name == l.Node() && n.Owner == l.Session() }
}

// queueOf and leasesOf are the semaphore dir's two children: its waiting
// members, and one node per lease held.
func queueOf(dir string) string  { return dir + "/queue" }
func leasesOf(dir string) string { return dir + "/leases" }

// noSemOrphan fails t if the semaphore dir holds any member's node.
func (f *fake) noSemOrphan(t *testing.T, dir, after string) {
	t.Helper()
	f.noOrphan(t, queueOf(dir), after)
	f.noOrphan(t, leasesOf(dir), after)
}

// TestZksimSemaphore_LostCreateReply (scenario 1): the create of the lease
// node (in the queue) is applied and its reply lost. queue.Join finds its guid owned by
// its session and adopts the node: acquires, no orphan.
func TestZksimSemaphore_LostCreateReply(t *testing.T) {
	const dir = "/sems/lost-create/s"
	f, ctx := scenario(t, path.Dir(dir))
	a := dialZksim(t, ctx, f)
	f.loseCreateReply(t, queueOf(dir), a.Session().ID)
	l := semAcquire(t, ctx, "A after a lost create reply", newSem(t, a, dir, 2, "a"))
	f.faultFired(t)
	f.only(t, leasesOf(dir), "A's lease "+l.Node(), isSemLease(dir, l))
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	f.noSemOrphan(t, dir, "A's Release")
}

// TestZksimSemaphore_ConnLossListing (scenario 2): the connection drops
// on the listing after the create; waitTurn lists again once the link is
// back: acquires, no orphan.
func TestZksimSemaphore_ConnLossListing(t *testing.T) {
	const dir = "/sems/children-loss/s"
	f, ctx := scenario(t, path.Dir(dir))
	a := dialZksim(t, ctx, f)
	fired := f.loseListing(queueOf(dir), a.Session().ID)
	l := semAcquire(t, ctx, "A after losing its listing", newSem(t, a, dir, 2, "a"))
	firedOnce(t, fired)
	f.only(t, leasesOf(dir), "A's lease "+l.Node(), isSemLease(dir, l))
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	f.noSemOrphan(t, dir, "A's Release")
}

// TestZksimSemaphore_SessionExpiredWhileHolding (scenario 3): one lease;
// A holds, B waits with the directory's child watch. The server expires
// A's session; B acquires. A is told: Wait, Check, Fenced and Release
// return ErrLost.
func TestZksimSemaphore_SessionExpiredWhileHolding(t *testing.T) {
	const dir = "/sems/expired-holder/s"
	f, ctx := scenario(t, path.Dir(dir))
	a, b := dialZksim(t, ctx, f), dialZksim(t, ctx, f)
	la := semAcquire(t, ctx, "A", newSem(t, a, dir, 1, "a"))
	waiting := zktest.Go(t, ctx, newSem(t, b, dir, 1, "b").Acquire)
	f.waitWatch(t, ctx, b.Session().ID, leasesOf(dir), true)
	if err := f.srv.Expire(la.Session()); err != nil {
		t.Fatal(err)
	}
	lb := waiting.Receive(t, ctx, "B after A's session expired: Acquire")
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
	f.only(t, leasesOf(dir), "B's lease", isSemLease(dir, lb))
}

// TestZksimSemaphore_MaxLeasesMismatch (scenario 4): A holds the only
// lease of a semaphore of 1; B, with 2 leases, fails with ErrMaxLeases
// (N is in every node's name, so each listing checks it) and removes its
// node, whatever the directory's data: fresh, empty or null.
func TestZksimSemaphore_MaxLeasesMismatch(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte // of a premade directory; fresh if nil and !premade
		pre  bool
	}{{"fresh", nil, false}, {"empty", []byte{}, true}, {"null", nil, true}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := "/sems/mismatch/" + tc.name
			f, ctx := scenario(t, path.Dir(dir))
			if tc.pre {
				f.create(t, ctx, dir, tc.data)
			}
			la := semAcquire(t, ctx, "A", newSem(t, dialZksim(t, ctx, f), dir, 1, "a"))
			_, err := newSem(t, dialZksim(t, ctx, f), dir, 2, "b").Acquire(ctx)
			if !errors.Is(err, semaphore.ErrMaxLeases) {
				t.Fatalf("B (2 leases) while A (1 lease) holds: Acquire = %v, want ErrMaxLeases", err)
			}
			f.only(t, leasesOf(dir), "A's lease", isSemLease(dir, la))
			f.noOrphan(t, queueOf(dir), "B's refusal")
		})
	}
}

// TestZksimSemaphore_WaiterAheadExpiresBeforeWatch (scenario 5): one
// lease; A holds; B is the first waiter (a child watch on the leases);
// C, a later waiter, lists the queue and sees B's node; B's session
// expires just before C's getData on it. NoNode is "gone": C lists again,
// finds itself the first waiter and watches the leases; once A
// releases, C acquires, and no watch is left. B's Acquire says ErrLost.
func TestZksimSemaphore_WaiterAheadExpiresBeforeWatch(t *testing.T) {
	const dir = "/sems/dying-waiter/s"
	f, ctx := scenario(t, path.Dir(dir))
	a, b, c := dialZksim(t, ctx, f), dialZksim(t, ctx, f), dialZksim(t, ctx, f)
	la := semAcquire(t, ctx, "A", newSem(t, a, dir, 1, "a"))
	bWaits := zktest.Go(t, ctx, newSem(t, b, dir, 1, "b").Acquire)
	f.waitWatch(t, ctx, b.Session().ID, leasesOf(dir), true)
	fired := f.expireOnRead(f.nodeOf(t, queueOf(dir), b.Session().ID), b.Session().ID, c.Session().ID)
	waiting := zktest.Go(t, ctx, newSem(t, c, dir, 1, "c").Acquire)
	f.waitWatch(t, ctx, c.Session().ID, leasesOf(dir), true)
	firedOnce(t, fired)
	if _, err := bWaits.Wait(t, ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("B: Acquire after its session expired = %v, want ErrLost", err)
	}
	waiting.Pending(t, "C while A holds")
	if err := la.Release(ctx); err != nil {
		t.Fatal(err)
	}
	lc := waiting.Receive(t, ctx, "C after A released: Acquire")
	f.only(t, leasesOf(dir), "C's lease", isSemLease(dir, lc))
	if n := f.watchCount(); n != 0 {
		t.Fatalf("%d watches left on the server, want none", n)
	}
}
