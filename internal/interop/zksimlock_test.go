package interop_test

import (
	"context"
	"errors"
	"path"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// dialZksim opens a session through zksim's go-zookeeper adapter; it is
// closed when the test ends.
func dialZksim(t *testing.T, ctx context.Context, f *fake) *gozk.Conn {
	t.Helper()
	return zktest.Dial(t, ctx, []string{f.addr}, gozk.Config{SessionTimeout: 4 * time.Second})
}

func newMutex(t *testing.T, c zkapi.Conn, dir, id string) *lock.Mutex {
	t.Helper()
	m, err := lock.New(c, dir, lock.Options{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// acquire takes the lock or fails t.
func acquire(t *testing.T, ctx context.Context, who string, m *lock.Mutex) recipe.Lease {
	t.Helper()
	l, err := m.Acquire(ctx)
	if err != nil {
		t.Fatalf("%s: Acquire: %v", who, err)
	}
	return l
}

// releaseAndHandOver releases l, checks the directory is left empty, and
// has a fresh contender take the lock at once.
func releaseAndHandOver(t *testing.T, ctx context.Context, f *fake, l recipe.Lease) {
	t.Helper()
	if err := l.Release(ctx); err != nil {
		t.Fatalf("A: Release: %v", err)
	}
	dir := path.Dir(l.Node())
	f.noOrphan(t, dir, "A's Release")
	b := dialZksim(t, ctx, f)
	lb := acquire(t, ctx, "B after A released", newMutex(t, b, dir, "b"))
	if err := lb.Release(ctx); err != nil {
		t.Fatalf("B: Release: %v", err)
	}
}

// isLeaseNode matches l's node in dir.
func isLeaseNode(dir string, l recipe.Lease) func(node) bool {
	return func(n node) bool { return dir+"/"+n.Name == l.Node() }
}

// expireWhileBWaits is scenario 3 up to B's grant: with A holding la, a
// contender on b queues and parks on A's node; then (after cut, if any,
// has cut A off) A's session is expired, and B must acquire.
func expireWhileBWaits(t *testing.T, ctx context.Context, f *fake, dir string, la recipe.Lease, b zkapi.Conn, cut func()) recipe.Lease {
	t.Helper()
	waiting := zktest.Go(t, ctx, newMutex(t, b, dir, "b").Acquire)
	f.waitParked(t, ctx, b.Session().ID, dir)
	if cut != nil {
		cut()
	}
	if err := f.srv.Expire(la.Session()); err != nil {
		t.Fatal(err)
	}
	return waiting.Receive(t, ctx, "B after A's session expired: Acquire")
}

// wantFencedLost fails t unless a fenced write through la, a lease whose
// session has expired, is refused with recipe.ErrLost.
func wantFencedLost(t *testing.T, ctx context.Context, la recipe.Lease, p string) {
	t.Helper()
	_, err := la.Fenced(ctx, zkapi.SetOp{Path: p, Data: []byte("stale"), Version: zkapi.AnyVersion})
	if !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("A: Fenced write = %v, want it refused with recipe.ErrLost", err)
	}
}

// TestZksimLock_LostCreateReply (scenario 1): the create of the lock node
// is applied and its reply lost. queue.Join looks for its guid, owned by
// its current session, after the connection loss (findOwn): it adopts the
// node and acquires; no orphan.
func TestZksimLock_LostCreateReply(t *testing.T) {
	const dir = "/locks/lost-create"
	f, ctx := scenario(t, dir)
	a := dialZksim(t, ctx, f)
	f.loseCreateReply(t, dir, a.Session().ID)
	l := acquire(t, ctx, "A after a lost create reply", newMutex(t, a, dir, "a"))
	f.faultFired(t)
	f.only(t, dir, "A's node "+l.Node(), func(n node) bool { return dir+"/"+n.Name == l.Node() && n.Owner == l.Session() })
	releaseAndHandOver(t, ctx, f, l)
}

// TestZksimLock_ConnLossListingChildren (scenario 2): the create is
// applied and answered, then the connection drops on the getChildren that
// follows. waitTurn retries the listing through connection loss
// (AwaitLink): A acquires; no orphan.
func TestZksimLock_ConnLossListingChildren(t *testing.T) {
	const dir = "/locks/children-loss"
	f, ctx := scenario(t, dir)
	a := dialZksim(t, ctx, f)
	f.loseChildren(t, dir, a.Session().ID)
	l := acquire(t, ctx, "A after losing its getChildren", newMutex(t, a, dir, "a"))
	f.faultFired(t)
	f.only(t, dir, "A's node "+l.Node(), isLeaseNode(dir, l))
	releaseAndHandOver(t, ctx, f, l)
}

// TestZksimLock_SessionExpiredWhileHolding (scenario 3): the server
// expires the holder's session; B acquires. A is told: Lease.Wait and
// Check return recipe.ErrLost once its Conn learns of the expiry, a fenced
// write is refused, Release reports ErrLost, and B's fencing token is
// above A's.
func TestZksimLock_SessionExpiredWhileHolding(t *testing.T) {
	const dir = "/locks/expired-holder"
	f, ctx := scenario(t, dir)
	a, b := dialZksim(t, ctx, f), dialZksim(t, ctx, f)
	la := acquire(t, ctx, "A", newMutex(t, a, dir, "a"))
	tokA := zktest.Token(t, ctx, la, "A")
	lb := expireWhileBWaits(t, ctx, f, dir, la, b, nil)
	if err := la.Wait(ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("A: Wait = %v, want recipe.ErrLost", err)
	}
	if err := la.Check(); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("A: Check = %v, want recipe.ErrLost", err)
	}
	wantFencedLost(t, ctx, la, dir)
	if tokB, err := lb.Token(ctx); err != nil || tokB <= tokA {
		t.Fatalf("B: Token = %d, %v; want above A's %d", tokB, err, tokA)
	}
	if err := la.Release(ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("A: Release = %v, want recipe.ErrLost", err)
	}
	f.only(t, dir, "B's node "+lb.Node(), isLeaseNode(dir, lb))
}

// TestZksimLock_PredecessorExpiresBeforeWatch (scenario 4): B lists the
// directory and sees A's node; A's session expires just before B's getData
// on it. watchGone takes NoNode as "gone" and waitTurn lists again: B
// acquires, with no watch left behind on the vanished node.
func TestZksimLock_PredecessorExpiresBeforeWatch(t *testing.T) {
	const dir = "/locks/dying-predecessor"
	f, ctx := scenario(t, dir)
	a, b := dialZksim(t, ctx, f), dialZksim(t, ctx, f)
	la := acquire(t, ctx, "A", newMutex(t, a, dir, "a"))
	fired := f.expireBeforeWatch(t, dir, la.Session(), b.Session().ID)
	lb := acquire(t, ctx, "B after its predecessor vanished", newMutex(t, b, dir, "b"))
	f.predecessorGone(t, dir, fired, "B's node "+lb.Node(), isLeaseNode(dir, lb))
	if err := la.Wait(ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("A: Wait = %v, want recipe.ErrLost", err)
	}
}

// TestZksimLock_SessionExpiredWhilePartitioned is scenario 3 with the
// holder cut off (a stalled proxy) when its session expires, as after a
// long GC pause or a partition: B acquires, and A cannot know yet, so
// Check still says it holds (no lock can do better; this is the window
// that fencing closes). Once A's Conn reaches the server again it learns
// of the expiry: Wait returns recipe.ErrLost and a fenced write is refused.
func TestZksimLock_SessionExpiredWhilePartitioned(t *testing.T) {
	const dir = "/locks/partitioned-holder"
	f, ctx := scenario(t, dir)
	proxy, err := zktest.NewProxy(f.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	a := zktest.Dial(t, ctx, []string{proxy.Addr()}, gozk.Config{SessionTimeout: 4 * time.Second})
	b := dialZksim(t, ctx, f)
	la := acquire(t, ctx, "A", newMutex(t, a, dir, "a"))
	lb := expireWhileBWaits(t, ctx, f, dir, la, b, proxy.Stall)
	if err := la.Check(); err != nil {
		t.Fatalf("A: Check while partitioned = %v; measured: nil (A cannot know yet)", err)
	}
	proxy.Resume()
	if err := la.Wait(ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("A: Wait after the partition healed = %v, want recipe.ErrLost", err)
	}
	wantFencedLost(t, ctx, la, dir)
	if err := lb.Release(ctx); err != nil {
		t.Fatalf("B: Release: %v", err)
	}
}
