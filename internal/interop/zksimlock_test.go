package interop_test

import (
	"context"
	"errors"
	"path"
	"sync"
	"testing"
	"time"

	"github.com/zksim/zksim/fakezk/server"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
	"github.com/zksim/zksim/zktest"
)

// dialZksim opens a session through zksim's go-zookeeper adapter; it is
// closed when the test ends.
func dialZksim(t *testing.T, ctx context.Context, f *fake) *gozk.Conn {
	t.Helper()
	return zktest.Dial(t, ctx, []string{f.addr}, gozk.Config{SessionTimeout: 4 * time.Second})
}

type acquireResult struct {
	lease *lock.Lease
	err   error
}

// acquireAsync runs m.Acquire(ctx) in a goroutine; the test's cleanup
// cancels it and waits for it.
func acquireAsync(t *testing.T, ctx context.Context, m *lock.Mutex) <-chan acquireResult {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan acquireResult, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		l, err := m.Acquire(ctx)
		done <- acquireResult{l, err}
	}()
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	return done
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
func acquire(t *testing.T, ctx context.Context, who string, m *lock.Mutex) *lock.Lease {
	t.Helper()
	l, err := m.Acquire(ctx)
	if err != nil {
		t.Fatalf("%s: Acquire: %v", who, err)
	}
	return l
}

// releaseAndHandOver releases l, checks the directory is left empty, and
// has a fresh contender take the lock at once.
func releaseAndHandOver(t *testing.T, ctx context.Context, f *fake, l *lock.Lease) {
	t.Helper()
	if err := l.Release(ctx); err != nil {
		t.Fatalf("A: Release: %v", err)
	}
	dir := path.Dir(l.Node())
	if ns := f.nodes(dir); len(ns) != 0 {
		t.Fatalf("after A's Release the directory holds %+v: an orphan", ns)
	}
	b := dialZksim(t, ctx, f)
	lb := acquire(t, ctx, "B after A released", newMutex(t, b, dir, "b"))
	if err := lb.Release(ctx); err != nil {
		t.Fatalf("B: Release: %v", err)
	}
}

// TestZksimLock_LostCreateReply (scenario 1): the create of the lock node
// is applied and its reply lost. queue.Join looks for its guid, owned by
// its current session, after the connection loss (findOwn): it adopts the
// node and acquires; no orphan.
func TestZksimLock_LostCreateReply(t *testing.T) {
	f := newFake(t)
	ctx := ctxFor(t, 30*time.Second)
	const dir = "/locks/lost-create"
	f.mkdir(t, ctx, dir)
	a := dialZksim(t, ctx, f)
	if err := f.srv.DropReply(server.Match{Op: "create", Path: dir + "/", Session: a.Session().ID}); err != nil {
		t.Fatal(err)
	}
	l := acquire(t, ctx, "A after a lost create reply", newMutex(t, a, dir, "a"))
	if p := f.srv.Pending(); len(p) != 0 {
		t.Fatalf("the fault never fired: %v", p)
	}
	if ns := f.nodes(dir); len(ns) != 1 || dir+"/"+ns[0].Name != l.Node() || ns[0].Owner != l.Session() {
		t.Fatalf("A holds %s; lock directory = %+v, want that node only", l.Node(), ns)
	}
	releaseAndHandOver(t, ctx, f, l)
}

// TestZksimLock_ConnLossListingChildren (scenario 2): the create is
// applied and answered, then the connection drops on the getChildren that
// follows. waitTurn retries the listing through connection loss
// (AwaitLink): A acquires; no orphan.
func TestZksimLock_ConnLossListingChildren(t *testing.T) {
	f := newFake(t)
	ctx := ctxFor(t, 30*time.Second)
	const dir = "/locks/children-loss"
	f.mkdir(t, ctx, dir)
	a := dialZksim(t, ctx, f)
	if err := f.srv.DropRequest(server.Match{Op: "children", Path: dir, Session: a.Session().ID}); err != nil {
		t.Fatal(err)
	}
	l := acquire(t, ctx, "A after losing its getChildren", newMutex(t, a, dir, "a"))
	if p := f.srv.Pending(); len(p) != 0 {
		t.Fatalf("the fault never fired: %v", p)
	}
	if ns := f.nodes(dir); len(ns) != 1 || dir+"/"+ns[0].Name != l.Node() {
		t.Fatalf("A holds %s; lock directory = %+v, want that node only", l.Node(), ns)
	}
	releaseAndHandOver(t, ctx, f, l)
}

// TestZksimLock_SessionExpiredWhileHolding (scenario 3): the server
// expires the holder's session; B acquires. A is told: Lease.Wait and
// Check return lock.ErrLost once its Conn learns of the expiry, a fenced
// write is refused, Release reports ErrLost, and B's fencing token is
// above A's.
func TestZksimLock_SessionExpiredWhileHolding(t *testing.T) {
	f := newFake(t)
	ctx := ctxFor(t, 30*time.Second)
	const dir = "/locks/expired-holder"
	f.mkdir(t, ctx, dir)
	a, b := dialZksim(t, ctx, f), dialZksim(t, ctx, f)
	la := acquire(t, ctx, "A", newMutex(t, a, dir, "a"))
	tokA, err := la.Token(ctx)
	if err != nil {
		t.Fatalf("A: Token: %v", err)
	}
	waiting := acquireAsync(t, ctx, newMutex(t, b, dir, "b"))
	f.waitParked(t, ctx, b.Session().ID, dir)

	if err := f.srv.Expire(la.Session()); err != nil {
		t.Fatal(err)
	}
	r := <-waiting
	if r.err != nil {
		t.Fatalf("B after A's session expired: Acquire: %v", r.err)
	}
	if err := la.Wait(ctx); !errors.Is(err, lock.ErrLost) {
		t.Fatalf("A: Wait = %v, want lock.ErrLost", err)
	}
	if err := la.Check(); !errors.Is(err, lock.ErrLost) {
		t.Fatalf("A: Check = %v, want lock.ErrLost", err)
	}
	_, err = la.Fenced(ctx, zkapi.SetOp{Path: dir, Data: []byte("stale"), Version: zkapi.AnyVersion})
	if !errors.Is(err, lock.ErrLost) {
		t.Fatalf("A: Fenced write = %v, want it refused with lock.ErrLost", err)
	}
	if tokB, err := r.lease.Token(ctx); err != nil || tokB <= tokA {
		t.Fatalf("B: Token = %d, %v; want above A's %d", tokB, err, tokA)
	}
	if err := la.Release(ctx); !errors.Is(err, lock.ErrLost) {
		t.Fatalf("A: Release = %v, want lock.ErrLost", err)
	}
	if ns := f.nodes(dir); len(ns) != 1 || dir+"/"+ns[0].Name != r.lease.Node() {
		t.Fatalf("directory = %+v, want B's node %s only", ns, r.lease.Node())
	}
}

// TestZksimLock_PredecessorExpiresBeforeWatch (scenario 4): B lists the
// directory and sees A's node; A's session expires just before B's getData
// on it. watchGone takes NoNode as "gone" and waitTurn lists again: B
// acquires, with no watch left behind on the vanished node.
func TestZksimLock_PredecessorExpiresBeforeWatch(t *testing.T) {
	f := newFake(t)
	ctx := ctxFor(t, 30*time.Second)
	const dir = "/locks/dying-predecessor"
	f.mkdir(t, ctx, dir)
	a, b := dialZksim(t, ctx, f), dialZksim(t, ctx, f)
	la := acquire(t, ctx, "A", newMutex(t, a, dir, "a"))
	fired := f.expireBeforeWatch(t, dir, la.Session(), b.Session().ID)
	lb := acquire(t, ctx, "B after its predecessor vanished", newMutex(t, b, dir, "b"))
	if n := fired.Load(); n != 1 {
		t.Fatalf("the staged expiry fired %d times, want 1", n)
	}
	if ns := f.nodes(dir); len(ns) != 1 || dir+"/"+ns[0].Name != lb.Node() {
		t.Fatalf("directory = %+v, want B's node %s only", ns, lb.Node())
	}
	if n := f.watchCount(); n != 0 {
		t.Fatalf("%d watches left on the server, want none", n)
	}
	if err := la.Wait(ctx); !errors.Is(err, lock.ErrLost) {
		t.Fatalf("A: Wait = %v, want lock.ErrLost", err)
	}
}

// TestZksimLock_SessionExpiredWhilePartitioned is scenario 3 with the
// holder cut off (a paused proxy) when its session expires, as after a
// long GC pause or a partition: B acquires, and A cannot know yet, so
// Check still says it holds (no lock can do better; this is the window
// that fencing closes). Once A's Conn reaches the server again it learns
// of the expiry: Wait returns lock.ErrLost and a fenced write is refused.
func TestZksimLock_SessionExpiredWhilePartitioned(t *testing.T) {
	f := newFake(t)
	ctx := ctxFor(t, 30*time.Second)
	const dir = "/locks/partitioned-holder"
	f.mkdir(t, ctx, dir)
	proxy, err := zktest.NewProxy(f.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	a := zktest.Dial(t, ctx, []string{proxy.Addr()}, gozk.Config{SessionTimeout: 4 * time.Second})
	b := dialZksim(t, ctx, f)
	la := acquire(t, ctx, "A", newMutex(t, a, dir, "a"))
	waiting := acquireAsync(t, ctx, newMutex(t, b, dir, "b"))
	f.waitParked(t, ctx, b.Session().ID, dir)

	proxy.Pause()
	if err := f.srv.Expire(la.Session()); err != nil {
		t.Fatal(err)
	}
	r := <-waiting
	if r.err != nil {
		t.Fatalf("B after A's session expired: Acquire: %v", r.err)
	}
	if err := la.Check(); err != nil {
		t.Fatalf("A: Check while partitioned = %v; measured: nil (A cannot know yet)", err)
	}
	proxy.Resume()
	if err := la.Wait(ctx); !errors.Is(err, lock.ErrLost) {
		t.Fatalf("A: Wait after the partition healed = %v, want lock.ErrLost", err)
	}
	_, err = la.Fenced(ctx, zkapi.SetOp{Path: dir, Data: []byte("stale"), Version: zkapi.AnyVersion})
	if !errors.Is(err, lock.ErrLost) {
		t.Fatalf("A: Fenced write = %v, want it refused with lock.ErrLost", err)
	}
	if err := r.lease.Release(ctx); err != nil {
		t.Fatalf("B: Release: %v", err)
	}
}
