package lock_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/zkapi"
)

const dir = "/locks/l"

// Uncontended acquire costs two requests (create, getChildren) once the
// directory exists; release costs one (delete).
func TestMutex_RoundTrips(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	c := w.conn()
	m := w.mutex(c, "a")
	l, err := m.Acquire(ctx) // creates the directory on first use
	if err != nil {
		t.Fatal(err)
	}
	l.Release(ctx)
	sid := c.Session().ID
	before := len(w.sent(sid))
	l, err = m.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	acquired := len(w.sent(sid))
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	reqs := w.sent(sid)
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
	holder := w.mutex(w.conn(), "h")
	first, err := holder.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const n = 5
	waiters := make([]*pending, n)
	prev := first.Node()
	for i := range waiters {
		waiters[i] = acquireAsync(ctx, w.mutex(w.conn(), "w"+string(rune('a'+i))))
		w.waitWatched(prev)
		kids := w.children(dir)
		prev = dir + "/" + kids[len(kids)-1]
	}
	w.srv.Inspect(func(m *fakezk.Machine) {
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
		if err := release.Release(ctx); err != nil {
			t.Fatal(err)
		}
		l, err := p.wait()
		if err != nil {
			t.Fatalf("waiter %d: %v", i, err)
		}
		for _, q := range waiters[i+1:] {
			if q.finished() {
				t.Fatalf("release woke a waiter out of turn")
			}
		}
		release = l
	}
	release.Release(ctx)
}

// Bug scenario 1 (ZOOKEEPER-1262): the create is applied but its reply is
// lost; the guid lookup finds the node, so there is no orphan and the lock
// is acquired.
func TestMutex_LostCreateReply(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	c := w.conn()
	m := w.mutex(c, "a")
	l, _ := m.Acquire(ctx) // directory exists from here
	l.Release(ctx)
	w.once(func(_ *fakezk.Machine, _ int64, req fakezk.Request) (fakezk.Fault, bool) {
		cr, ok := req.(fakezk.Create)
		return fakezk.LoseReply, ok && strings.HasPrefix(cr.Path, dir+"/lock-")
	})
	l, err := m.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if kids := w.children(dir); len(kids) != 1 || dir+"/"+kids[0] != l.Node() {
		t.Fatalf("after a lost create reply: children %v, lease %s", kids, l.Node())
	}
	l.Release(ctx)
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
	c, err := w.srv.Connect(fakezk.ConnOptions{Server: 1, SessionTimeoutMs: 4000})
	if err != nil {
		t.Fatal(err)
	}
	m := w.mutex(c, "a")
	l, _ := m.Acquire(ctx)
	l.Release(ctx)
	w.srv.Tick(1) // follower caught up
	old := c.Session().ID
	w.once(func(m *fakezk.Machine, sid int64, req fakezk.Request) (fakezk.Fault, bool) {
		if _, ok := req.(fakezk.Create); !ok {
			return 0, false
		}
		// Apply the create, then expire the session on the leader; the
		// follower has not caught up with the expiry yet.
		m.Do(sid, req)
		m.Expire(sid)
		return fakezk.LoseRequest, true
	})
	l, err = m.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	if l.Session() == old {
		t.Fatalf("lease belongs to the expired session %#x", old)
	}
	_, st, ok := node(w, l.Node())
	if !ok || st.EphemeralOwner != c.Session().ID {
		t.Fatalf("lease node %s owner %#x, want current session %#x", l.Node(), st.EphemeralOwner, c.Session().ID)
	}
}

func node(w *world, p string) (data []byte, st zkapi.Stat, ok bool) {
	w.srv.Inspect(func(m *fakezk.Machine) { data, st, ok = m.Node(p) })
	return
}

// Bug scenario 3 (CURATOR-206): the holder's session expires (a pause or
// partition longer than the timeout). The holder is told, a second client
// acquires, the stale holder's fenced write is rejected, and tokens grow.
func TestMutex_ExpiryWhileHolding(t *testing.T) {
	w := newWorld(t, fakezk.Config{TickMillis: 1000})
	a, b := w.conn(), w.conn()
	if _, err := a.Create(ctx, "/resource", nil, zkapi.Persistent); err != nil {
		t.Fatal(err)
	}
	la, err := w.mutex(a, "a").Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tokA, err := la.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pb := acquireAsync(ctx, w.mutex(b, "b"))
	w.waitWatched(la.Node())

	w.srv.Partition(la.Session()) // the holder pauses
	if err := la.Check(); err != nil {
		t.Fatalf("disconnected holder without LoseOnDisconnect: %v", err)
	}
	w.srv.Tick(4)        // past the session timeout
	lb, err := pb.wait() // b gets the lock
	if err != nil {
		t.Fatal(err)
	}
	tokB, err := lb.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tokB <= tokA {
		t.Fatalf("token of the new holder %d not above the old %d", tokB, tokA)
	}
	w.srv.Heal(la.Session()) // the holder wakes up
	if err := la.Check(); !errors.Is(err, lock.ErrLost) {
		t.Fatalf("stale holder's Check: %v, want ErrLost", err)
	}
	if err := la.Wait(ctx); !errors.Is(err, lock.ErrLost) {
		t.Fatalf("stale holder's Wait: %v, want ErrLost", err)
	}
	_, err = la.Fenced(ctx, zkapi.SetOp{Path: "/resource", Data: []byte("stale"), Version: -1})
	if !errors.Is(err, lock.ErrLost) {
		t.Fatalf("stale fenced write: %v, want ErrLost", err)
	}
	if _, err := lb.Fenced(ctx, zkapi.SetOp{Path: "/resource", Data: []byte("fresh"), Version: -1}); err != nil {
		t.Fatalf("holder's fenced write: %v", err)
	}
	if data, _, _ := node(w, "/resource"); string(data) != "fresh" {
		t.Fatalf("resource holds %q", data)
	}
	if err := la.Release(ctx); !errors.Is(err, lock.ErrLost) {
		t.Fatalf("stale Release: %v, want ErrLost", err)
	}
	lb.Release(ctx)
}

// With LoseOnDisconnect a holder learns at the disconnect, before the
// server decides.
func TestLease_LoseOnDisconnect(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	c := w.conn()
	l, err := w.mutex(c, "a", func(o *lock.Options) { o.LoseOnDisconnect = true }).Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- l.Wait(ctx) }()
	w.srv.Partition(c.Session().ID)
	if err := <-done; !errors.Is(err, lock.ErrSuspended) {
		t.Fatalf("Wait on disconnect: %v, want ErrSuspended", err)
	}
}

// Bug scenario 4: the predecessor is deleted between getChildren and the
// watch. The waiter re-lists instead of hanging, and leaves no watch behind
// on the vanished node.
func TestMutex_PredecessorGoneBeforeWatch(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	la, err := w.mutex(w.conn(), "a").Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	holder := la.Session()
	w.once(func(m *fakezk.Machine, _ int64, req fakezk.Request) (fakezk.Fault, bool) {
		g, ok := req.(fakezk.GetData)
		if !ok || !g.Watch || g.Path != la.Node() {
			return 0, false
		}
		m.Do(holder, fakezk.Delete{Path: la.Node(), Version: -1}) // released just now
		return fakezk.Deliver, true
	})
	lb, err := w.mutex(w.conn(), "b").Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w.srv.Inspect(func(m *fakezk.Machine) {
		if data, _ := m.Watchers(0, la.Node()); len(data) != 0 {
			t.Errorf("dangling watch on the vanished predecessor: %x", data)
		}
	})
	lb.Release(ctx)
}

// Bug scenario 5: a waiter woken because its predecessor gave up (not
// because the holder released) re-checks and keeps waiting.
func TestMutex_PredecessorGaveUp(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	la, _ := w.mutex(w.conn(), "a").Acquire(ctx)
	bctx, cancelB := context.WithCancel(ctx)
	pb := acquireAsync(bctx, w.mutex(w.conn(), "b"))
	w.waitWatched(la.Node())
	kids := w.children(dir)
	pc := acquireAsync(ctx, w.mutex(w.conn(), "c"))
	w.waitWatched(dir + "/" + kids[1])

	cancelB()
	if _, err := pb.wait(); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled waiter: %v", err)
	}
	w.waitWatched(la.Node()) // c now waits for a
	if pc.finished() {
		t.Fatal("c took the lock while a holds it")
	}
	if kids := w.children(dir); len(kids) != 2 {
		t.Fatalf("cancelled waiter left its node: %v", kids)
	}
	la.Release(ctx)
	lc, err := pc.wait()
	if err != nil {
		t.Fatal(err)
	}
	lc.Release(ctx)
}

// Bug scenario 6 (CURATOR-202/678, kazoo #732): cleanup on cancel hits
// connection loss, with the request lost and then with the reply lost; the
// node still goes, so later waiters do not deadlock.
func TestMutex_CleanupThroughConnectionLoss(t *testing.T) {
	for _, fault := range []fakezk.Fault{fakezk.LoseRequest, fakezk.LoseReply} {
		w := newWorld(t, fakezk.Config{})
		la, _ := w.mutex(w.conn(), "a").Acquire(ctx)
		bctx, cancelB := context.WithCancel(ctx)
		pb := acquireAsync(bctx, w.mutex(w.conn(), "b"))
		w.waitWatched(la.Node())
		for range 2 { // two failures in a row
			w.once(func(_ *fakezk.Machine, _ int64, req fakezk.Request) (fakezk.Fault, bool) {
				d, ok := req.(fakezk.Delete)
				return fault, ok && d.Path != la.Node()
			})
		}
		cancelB()
		pb.wait()
		if kids := w.children(dir); len(kids) != 1 {
			t.Fatalf("%v: cancelled waiter's node survived cleanup: %v", fault, kids)
		}
		// Release also survives connection loss.
		w.once(func(_ *fakezk.Machine, _ int64, req fakezk.Request) (fakezk.Fault, bool) {
			_, ok := req.(fakezk.Delete)
			return fault, ok
		})
		if err := la.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if kids := w.children(dir); len(kids) != 0 {
			t.Fatalf("%v: release left %v", fault, kids)
		}
	}
}

// A deadline ends the wait and removes the node.
func TestMutex_Timeout(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	la, _ := w.mutex(w.conn(), "a").Acquire(ctx)
	defer la.Release(ctx)
	tctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := w.mutex(w.conn(), "b").Acquire(tctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("acquire with a done ctx: %v", err)
	}
	if kids := w.children(dir); len(kids) != 1 {
		t.Fatalf("nodes: %v", kids)
	}
}

// Bug scenario 8: the directory's sequence counter at 2^31-1, under both
// overflow behaviours: refused loudly, nothing granted, nothing left.
func TestMutex_SequenceOverflow(t *testing.T) {
	for _, ov := range []fakezk.Overflow{fakezk.OverflowPin, fakezk.OverflowWrap} {
		w := newWorld(t, fakezk.Config{Overflow: ov})
		c := w.conn()
		l, _ := w.mutex(c, "a").Acquire(ctx)
		l.Release(ctx)
		w.srv.Inspect(func(m *fakezk.Machine) { m.SetSequence(dir, math.MaxInt32) })
		for _, id := range []string{"b", "c"} {
			if _, err := w.mutex(w.conn(), id).Acquire(ctx); !errors.Is(err, lock.ErrSequenceOverflow) {
				t.Fatalf("%v: acquire at 2^31-1: %v, want ErrSequenceOverflow", ov, err)
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
	c := w.conn()
	l, _ := w.mutex(c, "zzz").Acquire(ctx)
	l.Release(ctx)
	for _, name := range []string{"readme", "lock-", "lock-x-12", "other-a-0000000000", "lock-x-abcdefghij"} {
		if _, err := c.Create(ctx, dir+"/"+name, nil, zkapi.Persistent); err != nil {
			t.Fatal(err)
		}
	}
	lz, err := w.mutex(c, "zzz").Acquire(ctx) // sorts after "aaa" by name
	if err != nil {
		t.Fatal(err)
	}
	pa := acquireAsync(ctx, w.mutex(w.conn(), "aaa"))
	w.waitWatched(lz.Node())
	if pa.finished() {
		t.Fatal("a later node with a smaller name took the lock")
	}
	lz.Release(ctx)
	la, err := pa.wait()
	if err != nil {
		t.Fatal(err)
	}
	la.Release(ctx)

	// The directory is a container; once empty of lock nodes and removed,
	// the next Acquire recreates it.
	for _, name := range []string{"readme", "lock-", "lock-x-12", "other-a-0000000000", "lock-x-abcdefghij"} {
		c.Delete(ctx, dir+"/"+name, -1)
	}
	w.srv.Inspect(func(m *fakezk.Machine) { m.ReapContainers() })
	if _, ok, _ := c.Exists(ctx, dir); ok {
		t.Fatal("container directory not reaped")
	}
	l, err = w.mutex(c, "a").Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l.Release(ctx)
}

// The container parent is deleted between the failed create and the
// retry (a reaper racing the lock): the lock recreates it and succeeds.
func TestMutex_ContainerReapedDuringCreate(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	c := w.conn()
	w.once(func(m *fakezk.Machine, sid int64, req fakezk.Request) (fakezk.Fault, bool) {
		cr, ok := req.(fakezk.Create)
		if !ok || cr.Path != dir || cr.Mode != zkapi.Container {
			return 0, false
		}
		// The directory is created, gets a child, loses it, and is reaped
		// before our retried create arrives.
		m.Do(sid, req)
		m.Do(sid, fakezk.Create{Path: dir + "/x"})
		m.Do(sid, fakezk.Delete{Path: dir + "/x", Version: -1})
		m.ReapContainers()
		return fakezk.LoseReply, true
	})
	l, err := w.mutex(c, "a").Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l.Release(ctx)
}

func TestMutex_TryAcquire(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	la, err := w.mutex(w.conn(), "a").TryAcquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.mutex(w.conn(), "b").TryAcquire(ctx); !errors.Is(err, lock.ErrWouldBlock) {
		t.Fatalf("TryAcquire of a held lock: %v", err)
	}
	if kids := w.children(dir); len(kids) != 1 {
		t.Fatalf("failed TryAcquire left a node: %v", kids)
	}
	la.Release(ctx)
}

// Re-entrant: the same handle acquires again at once and must release as
// often; non-re-entrant: a second Acquire on the handle queues.
func TestMutex_Reentrancy(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	m := w.mutex(w.conn(), "a", func(o *lock.Options) { o.Reentrant = true })
	l1, _ := m.Acquire(ctx)
	l2, err := m.Acquire(ctx)
	if err != nil || l1 != l2 {
		t.Fatalf("re-entrant acquire: %v, same lease %v", err, l1 == l2)
	}
	other := w.mutex(w.conn(), "b")
	l1.Release(ctx)
	if _, err := other.TryAcquire(ctx); !errors.Is(err, lock.ErrWouldBlock) {
		t.Fatalf("lock free after one of two releases: %v", err)
	}
	l2.Release(ctx)
	lo, err := other.TryAcquire(ctx)
	if err != nil {
		t.Fatalf("lock not free after both releases: %v", err)
	}
	lo.Release(ctx)

	semaphore := w.mutex(w.conn(), "s")
	ls, _ := semaphore.Acquire(ctx)
	if _, err := semaphore.TryAcquire(ctx); !errors.Is(err, lock.ErrWouldBlock) {
		t.Fatalf("non-re-entrant second acquire: %v", err)
	}
	ls.Release(ctx)
}

// Release is idempotent.
func TestLease_ReleaseTwice(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	l, _ := w.mutex(w.conn(), "a").Acquire(ctx)
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatalf("second release: %v", err)
	}
	if err := l.Check(); !errors.Is(err, lock.ErrReleased) {
		t.Fatalf("Check after release: %v", err)
	}
}

func TestNew_BadConfig(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	c := w.conn()
	for _, d := range []string{"", "/", "rel", "/a/", "/a//b"} {
		if _, err := lock.New(c, d, lock.Options{}); !errors.Is(err, lock.ErrConfig) {
			t.Errorf("dir %q: %v", d, err)
		}
	}
	if _, err := lock.New(c, "/a", lock.Options{ID: "has-dash"}); !errors.Is(err, lock.ErrConfig) {
		t.Errorf("id with a dash: %v", err)
	}
	if _, err := lock.NewMulti(c, []string{"/a", "/a"}, lock.Options{}); !errors.Is(err, lock.ErrConfig) {
		t.Errorf("duplicate multi paths: %v", err)
	}
}
