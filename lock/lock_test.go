package lock_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/fakehook"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

const dir = "/locks/l"

// Uncontended acquire costs two requests (create, getChildren) once the
// directory exists; release costs one (delete).
func TestMutex_RoundTrips(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	c := w.conn()
	m := w.mutex(c, "a")
	w.release(w.acquire(m)) // creates the directory on first use
	sid := c.Session().ID
	before := len(w.Sent(sid))
	l := w.acquire(m)
	acquired := len(w.Sent(sid))
	w.release(l)
	reqs := w.Sent(sid)
	if got := acquired - before; got != 2 {
		t.Errorf("uncontended acquire sent %d requests, want 2: %v", got, reqs[before:acquired])
	}
	if got := len(reqs) - acquired; got != 1 {
		t.Errorf("release sent %d requests, want 1: %v", got, reqs[acquired:])
	}
	if kids := w.children(dir); len(kids) != 0 {
		t.Errorf("nodes left after release: %v", kids)
	}
}

// Waiters queue in FIFO order, each with one data watch on its immediate
// predecessor and none on the directory (no herd); a release wakes one.
func TestMutex_FIFOWithoutHerd(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	first := w.acquire(w.mutex(w.conn(), "h"))
	const n = 5
	waiters := make([]*zktest.Async[recipe.Lease], n)
	prev := first.Node()
	for i := range waiters {
		waiters[i] = w.acquireAsync(w.ctx, w.mutex(w.conn(), "w"+string(rune('a'+i))))
		w.waitWatched(prev)
		kids := w.children(dir)
		prev = dir + "/" + kids[len(kids)-1]
	}
	fakehook.Inspect(w.srv, func(m *machine.Machine) {
		if _, child := m.Watchers(0, dir); len(child) != 0 {
			t.Errorf("sessions %x watch the directory", child)
		}
		for _, k := range m.Children(dir) {
			if data, _ := m.Watchers(0, dir+"/"+k); len(data) > 1 {
				t.Errorf("%s has %d watchers, want at most 1", k, len(data))
			}
		}
	})
	release := first
	for i, p := range waiters {
		w.release(release)
		l, err := p.Wait(t, w.ctx)
		if err != nil {
			t.Fatalf("waiter %d: %v", i, err)
		}
		for _, q := range waiters[i+1:] {
			if q.Returned() {
				t.Fatalf("release woke a waiter out of turn")
			}
		}
		release = l
	}
	w.release(release)
}

// Bug scenario 1 (ZOOKEEPER-1262): the create is applied but its reply is
// lost; the guid lookup finds the node, so there is no orphan and the lock
// is acquired.
func TestMutex_LostCreateReply(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	m := w.mutex(w.conn(), "a")
	w.release(w.acquire(m)) // directory exists from here
	w.Once(func(_ *machine.Machine, _ int64, req proto.Request) (fakezk.Fault, bool) {
		cr, ok := req.(proto.Create)
		return fakezk.LoseReply, ok && strings.HasPrefix(cr.Path, dir+"/lock-")
	})
	l := w.acquire(m)
	if kids := w.children(dir); len(kids) != 1 || dir+"/"+kids[0] != l.Node() {
		t.Fatalf("after a lost create reply: children %v, lease %s", kids, l.Node())
	}
	w.release(l)
	if kids := w.children(dir); len(kids) != 0 {
		t.Fatalf("orphan left: %v", kids)
	}
}

// Bug scenario 2 (CURATOR-498/604): after a lost create reply the session
// expires; a lagging follower still lists the old session's node, whose
// guid matches. The lock must not adopt it (wrong ephemeralOwner), and must
// create a node of its own.
func TestMutex_LostCreateOfDyingSessionNotAdopted(t *testing.T) {
	w := newWorld(t, fakezk.Config{Followers: 1})
	c, err := w.srv.Connect(fakezk.ConnOptions{Replica: 1, SessionTimeoutMs: 4000})
	if err != nil {
		t.Fatal(err)
	}
	m := w.mutex(c, "a")
	w.release(w.acquire(m))
	w.srv.Tick(1) // follower caught up
	old := c.Session().ID
	w.Once(func(m *machine.Machine, sid int64, req proto.Request) (fakezk.Fault, bool) {
		if _, ok := req.(proto.Create); !ok {
			return 0, false
		}
		// Apply the create, then expire the session on the leader; the
		// follower has not caught up with the expiry yet.
		m.Do(sid, req)
		m.Expire(sid)
		return fakezk.LoseRequest, true
	})
	l := w.acquire(m)
	if l.Session() == old {
		t.Fatalf("lease belongs to the expired session %#x", old)
	}
	_, st, ok := node(w, l.Node())
	if !ok || st.EphemeralOwner != c.Session().ID {
		t.Fatalf("lease node %s owner %#x, want current session %#x", l.Node(), st.EphemeralOwner, c.Session().ID)
	}
	w.release(l)
}

func node(w *world, p string) (data []byte, st zkapi.Stat, ok bool) {
	w.srv.Inspect(func(m fakezk.State) { data, st, ok = m.Node(p) })
	return
}

// Bug scenario 3 (CURATOR-206): the holder's session expires (a pause or
// partition longer than the timeout). The holder is told, a second client
// acquires, the stale holder's fenced write is rejected, and tokens grow.
func TestMutex_ExpiryWhileHolding(t *testing.T) {
	w := newWorld(t, fakezk.Config{TickMillis: 1000})
	ctx := w.ctx
	a, b := w.conn(), w.conn()
	if _, err := a.Create(ctx, "/resource", nil, zkapi.Persistent); err != nil {
		t.Fatal(err)
	}
	la := w.acquire(w.mutex(a, "a"))
	tokA, err := la.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pb := w.acquireAsync(ctx, w.mutex(b, "b"))
	w.waitWatched(la.Node())

	w.srv.Disconnect(la.Session()) // the holder pauses
	if err := la.Check(); err != nil {
		t.Fatalf("disconnected holder without LoseOnDisconnect: %v", err)
	}
	w.srv.Tick(4)                         // past the session timeout
	lb := pb.Receive(t, w.ctx, "Acquire") // b gets the lock
	tokB, err := lb.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tokB <= tokA {
		t.Fatalf("token of the new holder %d not above the old %d", tokB, tokA)
	}
	w.srv.Reconnect(la.Session()) // the holder wakes up
	if err := la.Check(); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("stale holder's Check: %v, want ErrLost", err)
	}
	if err := la.Wait(ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("stale holder's Wait: %v, want ErrLost", err)
	}
	_, err = la.Fenced(ctx, zkapi.SetOp{Path: "/resource", Data: []byte("stale"), Version: -1})
	if !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("stale fenced write: %v, want ErrLost", err)
	}
	if _, err := lb.Fenced(ctx, zkapi.SetOp{Path: "/resource", Data: []byte("fresh"), Version: -1}); err != nil {
		t.Fatalf("holder's fenced write: %v", err)
	}
	if data, _, _ := node(w, "/resource"); string(data) != "fresh" {
		t.Fatalf("resource holds %q", data)
	}
	if err := la.Release(ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("stale Release: %v, want ErrLost", err)
	}
	w.release(lb)
}

// With LoseOnDisconnect a holder learns at the disconnect, before the
// server decides.
func TestLease_LoseOnDisconnect(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	c := w.conn()
	l := w.acquire(w.mutex(c, "a", func(o *lock.Options) { o.LoseOnDisconnect = true }))
	waiting := zktest.Go(t, w.ctx, func(ctx context.Context) (struct{}, error) { return struct{}{}, l.Wait(ctx) })
	w.srv.Disconnect(c.Session().ID)
	if _, err := waiting.Wait(t, w.ctx); !errors.Is(err, recipe.ErrSuspended) {
		t.Fatalf("Wait on disconnect: %v, want ErrSuspended", err)
	}
}

// Bug scenario 4: the predecessor is deleted between getChildren and the
// watch. The waiter re-lists instead of hanging, and leaves no watch behind
// on the vanished node.
func TestMutex_PredecessorGoneBeforeWatch(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	la := w.acquire(w.mutex(w.conn(), "a"))
	holder := la.Session()
	w.Once(func(m *machine.Machine, _ int64, req proto.Request) (fakezk.Fault, bool) {
		g, ok := req.(proto.GetData)
		if !ok || !g.Watch || g.Path != la.Node() {
			return 0, false
		}
		m.Do(holder, proto.Delete{Path: la.Node(), Version: -1}) // released just now
		return fakezk.Deliver, true
	})
	lb := w.acquire(w.mutex(w.conn(), "b"))
	fakehook.Inspect(w.srv, func(m *machine.Machine) {
		if data, _ := m.Watchers(0, la.Node()); len(data) != 0 {
			t.Errorf("dangling watch on the vanished predecessor: %x", data)
		}
	})
	w.release(lb)
}

// Bug scenario 5: a waiter woken because its predecessor gave up (not
// because the holder released) re-checks and keeps waiting.
func TestMutex_PredecessorGaveUp(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	la := w.acquire(w.mutex(w.conn(), "a"))
	bctx, cancelB := context.WithCancel(w.ctx)
	defer cancelB()
	pb := w.acquireAsync(bctx, w.mutex(w.conn(), "b"))
	w.waitWatched(la.Node())
	kids := w.children(dir)
	pc := w.acquireAsync(w.ctx, w.mutex(w.conn(), "c"))
	w.waitWatched(dir + "/" + kids[1])

	cancelB()
	if _, err := pb.Wait(t, w.ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled waiter: %v", err)
	}
	w.waitWatched(la.Node()) // c now waits for a
	if pc.Returned() {
		t.Fatal("c took the lock while a holds it")
	}
	if kids := w.children(dir); len(kids) != 2 {
		t.Fatalf("cancelled waiter left its node: %v", kids)
	}
	w.release(la)
	w.release(pc.Receive(t, w.ctx, "Acquire"))
}

// Bug scenario 6 (CURATOR-202/678, kazoo #732): cleanup on cancel hits
// connection loss, with the request lost and then with the reply lost; the
// node still goes, so later waiters do not deadlock.
func TestMutex_CleanupThroughConnectionLoss(t *testing.T) {
	for _, fault := range []fakezk.Fault{fakezk.LoseRequest, fakezk.LoseReply} {
		w := newWorld(t, fakezk.Config{})
		la := w.acquire(w.mutex(w.conn(), "a"))
		bctx, cancelB := context.WithCancel(w.ctx)
		pb := w.acquireAsync(bctx, w.mutex(w.conn(), "b"))
		w.waitWatched(la.Node())
		for range 2 { // two failures in a row
			w.Once(func(_ *machine.Machine, _ int64, req proto.Request) (fakezk.Fault, bool) {
				d, ok := req.(proto.Delete)
				return fault, ok && d.Path != la.Node()
			})
		}
		cancelB()
		if _, err := pb.Wait(t, w.ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("%v: cancelled waiter: %v", fault, err)
		}
		if kids := w.children(dir); len(kids) != 1 {
			t.Fatalf("%v: cancelled waiter's node survived cleanup: %v", fault, kids)
		}
		// Release also survives connection loss.
		w.Once(func(_ *machine.Machine, _ int64, req proto.Request) (fakezk.Fault, bool) {
			_, ok := req.(proto.Delete)
			return fault, ok
		})
		w.release(la)
		if kids := w.children(dir); len(kids) != 0 {
			t.Fatalf("%v: release left %v", fault, kids)
		}
	}
}

// A deadline ends the wait and removes the node.
func TestMutex_Timeout(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	la := w.acquire(w.mutex(w.conn(), "a"))
	tctx, cancel := context.WithCancel(w.ctx)
	cancel()
	if _, err := w.mutex(w.conn(), "b").Acquire(tctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("acquire with a done ctx: %v", err)
	}
	if kids := w.children(dir); len(kids) != 1 {
		t.Fatalf("nodes: %v", kids)
	}
	w.release(la)
}

// Bug scenario 8: the directory's sequence counter at 2^31-1, under both
// overflow behaviours: refused loudly, nothing granted, nothing left.
func TestMutex_SequenceOverflow(t *testing.T) {
	for _, ov := range []fakezk.Overflow{fakezk.OverflowPin, fakezk.OverflowWrap} {
		w := newWorld(t, fakezk.Config{Overflow: ov})
		w.release(w.acquire(w.mutex(w.conn(), "a")))
		fakehook.Inspect(w.srv, func(m *machine.Machine) {
			if err := m.SetSequence(dir, math.MaxInt32); err != nil {
				t.Error(err)
			}
		})
		for _, id := range []string{"b", "c"} {
			_, err := w.mutex(w.conn(), id).Acquire(w.ctx)
			if !errors.Is(err, recipe.ErrSequenceOverflow) {
				t.Fatalf("%v: acquire at 2^31-1: %v, want ErrSequenceOverflow", ov, err)
			}
			if strings.Contains(err.Error(), "queue") {
				t.Errorf("the error names lock's internals: %v", err)
			}
		}
		if kids := w.children(dir); len(kids) != 0 {
			t.Fatalf("%v: nodes left: %v", ov, kids)
		}
	}
}

// Bug scenario 10: foreign children are ignored, order is by sequence even
// when names sort otherwise (ZOOKEEPER-2931), and a container directory
// removed before the create is recreated.
func TestMutex_MessyDirectory(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	ctx := w.ctx
	c := w.conn()
	w.release(w.acquire(w.mutex(c, "zzz")))
	foreign := []string{"readme", "lock-", "lock-x-12", "other-a-0000000000", "lock-x-abcdefghij"}
	for _, name := range foreign {
		if _, err := c.Create(ctx, dir+"/"+name, nil, zkapi.Persistent); err != nil {
			t.Fatal(err)
		}
	}
	lz := w.acquire(w.mutex(c, "zzz")) // sorts after "aaa" by name
	pa := w.acquireAsync(ctx, w.mutex(w.conn(), "aaa"))
	w.waitWatched(lz.Node())
	if pa.Returned() {
		t.Fatal("a later node with a smaller name took the lock")
	}
	w.release(lz)
	w.release(pa.Receive(t, w.ctx, "Acquire"))

	// The directory is a container; once empty of lock nodes and removed,
	// the next Acquire recreates it.
	for _, name := range foreign {
		if err := c.Delete(ctx, dir+"/"+name, -1); err != nil {
			t.Fatal(err)
		}
	}
	fakehook.Inspect(w.srv, func(m *machine.Machine) { m.ReapContainers() })
	if _, ok, err := c.Exists(ctx, dir); err != nil || ok {
		t.Fatalf("container directory not reaped: exists %v, %v", ok, err)
	}
	w.release(w.acquire(w.mutex(c, "a")))
}

// The container parent is deleted between the failed create and the
// retry (a reaper racing the lock): the lock recreates it and succeeds.
func TestMutex_ContainerReapedDuringCreate(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	c := w.conn()
	w.Once(func(m *machine.Machine, sid int64, req proto.Request) (fakezk.Fault, bool) {
		cr, ok := req.(proto.Create)
		if !ok || cr.Path != dir || cr.Mode != zkapi.Container {
			return 0, false
		}
		// The directory is created, gets a child, loses it, and is reaped
		// before our retried create arrives.
		m.Do(sid, req)
		m.Do(sid, proto.Create{Path: dir + "/x"})
		m.Do(sid, proto.Delete{Path: dir + "/x", Version: -1})
		m.ReapContainers()
		return fakezk.LoseReply, true
	})
	w.release(w.acquire(w.mutex(c, "a")))
}

func TestMutex_TryAcquire(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	la, err := w.mutex(w.conn(), "a").TryAcquire(w.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.mutex(w.conn(), "b").TryAcquire(w.ctx); !errors.Is(err, recipe.ErrWouldBlock) {
		t.Fatalf("TryAcquire of a held lock: %v", err)
	}
	if kids := w.children(dir); len(kids) != 1 {
		t.Fatalf("failed TryAcquire left a node: %v", kids)
	}
	w.release(la)
}

// Re-entrant: the same handle acquires again at once and must release as
// often; non-re-entrant: a second Acquire on the handle queues.
func TestMutex_Reentrancy(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	ctx := w.ctx
	m := w.mutex(w.conn(), "a", func(o *lock.Options) { o.Reentrant = true })
	l1 := w.acquire(m)
	l2, err := m.Acquire(ctx)
	if err != nil || l1 != l2 {
		t.Fatalf("re-entrant acquire: %v, same lease %v", err, l1 == l2)
	}
	other := w.mutex(w.conn(), "b")
	w.release(l1)
	if _, err := other.TryAcquire(ctx); !errors.Is(err, recipe.ErrWouldBlock) {
		t.Fatalf("lock free after one of two releases: %v", err)
	}
	w.release(l2)
	lo, err := other.TryAcquire(ctx)
	if err != nil {
		t.Fatalf("lock not free after both releases: %v", err)
	}
	w.release(lo)

	semaphore := w.mutex(w.conn(), "s")
	ls := w.acquire(semaphore)
	if _, err := semaphore.TryAcquire(ctx); !errors.Is(err, recipe.ErrWouldBlock) {
		t.Fatalf("non-re-entrant second acquire: %v", err)
	}
	w.release(ls)
}

// Release is idempotent.
func TestLease_ReleaseTwice(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	l := w.acquire(w.mutex(w.conn(), "a"))
	w.release(l)
	if err := l.Release(w.ctx); err != nil {
		t.Fatalf("second release: %v", err)
	}
	if err := l.Check(); !errors.Is(err, recipe.ErrReleased) {
		t.Fatalf("Check after release: %v", err)
	}
}

// A handle's leases are its own, each acquisition's: a lease already
// released stays released (Check, and a second Release, do nothing to
// the next acquisition's lease on the same handle), whichever of a
// handle's leases it is.
func TestLease_ReleasedLeaseLeavesTheNextAlone(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	m := w.mutex(w.conn(), "a")
	var old []recipe.Lease
	for range 3 {
		l := w.acquire(m)
		for _, o := range old {
			if err := o.Release(w.ctx); err != nil {
				t.Fatalf("release of an old lease: %v", err)
			}
			if err := o.Check(); !errors.Is(err, recipe.ErrReleased) {
				t.Fatalf("old lease's Check: %v, want ErrReleased", err)
			}
		}
		if err := l.Check(); err != nil {
			t.Fatalf("lease %d after old leases were released again: %v", len(old)+1, err)
		}
		if kids := w.children(dir); len(kids) != 1 {
			t.Fatalf("lease %d: nodes %v, want its own", len(old)+1, kids)
		}
		w.release(l)
		old = append(old, l)
	}
}

// waitSignal is a Conn that says when a caller has entered WaitSession.
type waitSignal struct {
	fakezk.Conn
	entered chan struct{}
	once    sync.Once
}

func (c *waitSignal) WaitSession(ctx context.Context, seq uint64) (zkapi.Session, error) {
	c.once.Do(func() { close(c.entered) })
	return c.Conn.WaitSession(ctx, seq)
}

// A Release from another goroutine ends a Wait already blocked on the
// session, as Wait's doc promises ("lost (or released)"), instead of
// leaving the holder's watchdog waiting for a change that never comes.
func TestLease_WaitEndsOnRelease(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	c := &waitSignal{Conn: w.conn(), entered: make(chan struct{})}
	l := w.acquire(w.mutex(c, "a"))
	waiting := zktest.Go(t, w.ctx, func(ctx context.Context) (struct{}, error) { return struct{}{}, l.Wait(ctx) })
	select {
	case <-c.entered:
	case <-w.ctx.Done():
		t.Fatal("Wait never waited on the session")
	}
	w.release(l)
	if _, err := waiting.Wait(t, w.ctx); !errors.Is(err, recipe.ErrReleased) {
		t.Fatalf("Wait after a concurrent Release: %v, want ErrReleased", err)
	}
}

func TestNew_BadConfig(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	c := w.conn()
	for _, d := range []string{"", "/", "rel", "/a/", "/a//b"} {
		if _, err := lock.New(c, d, lock.Options{}); !errors.Is(err, recipe.ErrConfig) {
			t.Errorf("dir %q: %v", d, err)
		}
	}
	if _, err := lock.New(c, "/a", lock.Options{ID: "has-dash"}); !errors.Is(err, recipe.ErrConfig) {
		t.Errorf("id with a dash: %v", err)
	}
	if _, err := lock.NewMulti(c, []string{"/a", "/a"}, lock.Options{}); !errors.Is(err, recipe.ErrConfig) {
		t.Errorf("duplicate multi paths: %v", err)
	}
}

// A node the server removed while the holder held it (its session closed
// on the server before the client heard) is reported at release: Release
// says ErrLost instead of a clean release (seen on 3.8.0 with zksim run
// -servers -faults expire=N, where the reader's section looked whole).
func TestMutex_ReleaseOfAVanishedNodeSaysLost(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	l := w.acquire(w.mutex(w.conn(), "a"))
	if err := w.conn().Delete(w.ctx, l.Node(), -1); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(w.ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("Release of a vanished node: %v, want ErrLost", err)
	}
}
