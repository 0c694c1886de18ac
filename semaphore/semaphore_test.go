package semaphore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zoo"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/fakehook"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/semaphore"
	"github.com/zksim/zksim/zkapi"
)

// N leases are held at once; the next waiters queue, each watching one
// thing: the first waiter the leases, every later one its predecessor.
func TestSemaphore_WatchesWithoutHerd(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	const n = 3
	var held []recipe.Lease
	for i := range n {
		held = append(held, w.acquire(w.sem(w.conn(), fmt.Sprint("h", i), n)))
	}
	var waiters []*zktest.Async[recipe.Lease]
	for i := range 4 {
		waiters = append(waiters, w.acquireAsync(w.ctx, w.sem(w.conn(), fmt.Sprint("w", i), n)))
		w.settle(n, n+i+1)
	}
	onLeases, onNode := w.watchers()
	if len(onLeases) != 1 {
		t.Errorf("sessions %x watch the leases, want the first waiter alone", onLeases)
	}
	for k, ids := range onNode {
		if len(ids) > 1 {
			t.Errorf("%s has %d watchers, want at most 1", k, len(ids))
		}
	}
	for _, p := range waiters {
		p.Pending(t, "Acquire")
	}
	for _, l := range held {
		w.release(l)
	}
	for _, p := range waiters {
		w.release(p.Receive(t, w.ctx, "Acquire"))
	}
}

// A release wakes exactly one waiter, the first, which takes the lease;
// its promotion wakes only the new first waiter; no one else lists again.
func TestSemaphore_ReleaseWakesOne(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	const n = 2
	var held []recipe.Lease
	for i := range n {
		held = append(held, w.acquire(w.sem(w.conn(), fmt.Sprint("h", i), n)))
	}
	type waiter struct {
		sid int64
		p   *zktest.Async[recipe.Lease]
	}
	var ws []waiter
	for i := range 5 {
		c := w.conn()
		ws = append(ws, waiter{c.Session().ID, w.acquireAsync(w.ctx, w.sem(c, fmt.Sprint("w", i), n))})
		w.settle(n, n+i+1)
	}
	before := make([]int, len(ws))
	for i, x := range ws {
		before[i] = w.listings(x.sid)
	}
	w.release(held[1]) // not the oldest: any holder's release must wake
	got := ws[0].p.Receive(t, w.ctx, "Acquire")
	w.settle(n, n+len(ws)-1)
	for i, x := range ws {
		woke := w.listings(x.sid) - before[i]
		want := 0
		switch i {
		case 0:
			want = 1 // the woken first waiter, granted
		case 1:
			want = 1 // the new first waiter: woken by the promotion
		}
		if woke != want {
			t.Errorf("waiter %d listed %d times after one release, want %d", i, woke, want)
		}
		if i > 0 && x.p.Returned() {
			t.Errorf("waiter %d returned after one release", i)
		}
	}
	w.release(got)
	w.release(held[0])
	for _, x := range ws[1:] {
		w.release(x.p.Receive(t, w.ctx, "Acquire"))
	}
	if kids := w.children(); len(kids) != 0 {
		t.Fatalf("nodes left: %v", kids)
	}
}

// Liveness: whichever holder goes, and however it goes (release, expiry),
// the first waiter takes its lease; a free lease is never left untaken
// while someone waits.
func TestSemaphore_AnyHolderFreesALease(t *testing.T) {
	for victim := range 3 {
		w := newWorld(t, fakezk.Config{TickMillis: 1000})
		const n = 3
		var held []recipe.Lease
		for i := range n {
			held = append(held, w.acquire(w.sem(w.conn(), fmt.Sprint("h", i), n)))
		}
		p := w.acquireAsync(w.ctx, w.sem(w.conn(), "w", n))
		w.settle(n, n+1)
		if victim == 2 { // the holder's session expires instead
			w.srv.Disconnect(held[victim].Session())
			w.srv.Tick(5)
		} else {
			w.release(held[victim])
		}
		l := p.Receive(t, w.ctx, "Acquire")
		w.release(l)
		for i, h := range held {
			if i != victim {
				w.release(h)
			}
		}
	}
}

// Never more than N at once: clients contending and releasing (a
// sample of schedules; TestSemaphore_WatchesWithoutHerd pins the N+1st
// waiter deterministically).
func TestSemaphore_AtMostN(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	const n, clients, rounds = 2, 5, 4
	var mu = make(chan struct{}, 1)
	inside, most := 0, 0
	work := func(s *semaphore.Semaphore) func(ctx context.Context) (int, error) {
		return func(ctx context.Context) (int, error) {
			for range rounds {
				l, err := s.Acquire(ctx)
				if err != nil {
					return 0, err
				}
				mu <- struct{}{}
				inside++
				most = max(most, inside)
				<-mu
				// A round trip inside widens the window for an overlap.
				if _, err := l.Token(ctx); err != nil {
					return 0, err
				}
				mu <- struct{}{}
				inside--
				<-mu
				if err := l.Release(ctx); err != nil {
					return 0, err
				}
			}
			return rounds, nil
		}
	}
	var ps []*zktest.Async[int]
	for i := range clients {
		ps = append(ps, zktest.Go(t, w.ctx, work(w.sem(w.conn(), fmt.Sprint("c", i), n))))
	}
	for _, p := range ps {
		p.Receive(t, w.ctx, "worker")
	}
	if most > n {
		t.Fatalf("%d holders at once, want at most %d", most, n)
	}
	if kids := w.children(); len(kids) != 0 {
		t.Fatalf("nodes left: %v", kids)
	}
}

// kazoo #213: non-blocking acquires racing never hold more than N leases,
// and a refused one leaves no node.
func TestSemaphore_TryAcquireNeverOverGrants(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	const n, clients = 2, 6
	var ps []*zktest.Async[recipe.Lease]
	for i := range clients {
		ps = append(ps, zktest.Go(t, w.ctx, w.sem(w.conn(), fmt.Sprint("c", i), n).TryAcquire))
	}
	var got []recipe.Lease
	for _, p := range ps {
		l, err := p.Wait(t, w.ctx)
		switch {
		case err == nil:
			got = append(got, l)
		case !errors.Is(err, recipe.ErrWouldBlock):
			t.Fatalf("TryAcquire: %v", err)
		}
	}
	if len(got) > n || len(got) == 0 {
		t.Fatalf("%d TryAcquires succeeded, want 1..%d", len(got), n)
	}
	if kids := w.children(); len(kids) != len(got) {
		t.Fatalf("nodes %v for %d leases", kids, len(got))
	}
	for _, l := range got {
		w.release(l)
	}
	// Free again: a TryAcquire takes a lease.
	l, err := w.sem(w.conn(), "late", n).TryAcquire(w.ctx)
	if err != nil {
		t.Fatalf("TryAcquire on a free semaphore: %v", err)
	}
	w.release(l)
}

// A client with another N than the directory's is refused loudly and
// leaves no node; the directory's own clients go on.
func TestSemaphore_MaxLeasesMismatch(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	a := w.acquire(w.sem(w.conn(), "a", 1))
	for _, other := range []int{2, 5} {
		_, err := w.sem(w.conn(), "b", other).Acquire(w.ctx)
		if !errors.Is(err, semaphore.ErrMaxLeases) {
			t.Fatalf("N=%d against N=1: %v, want ErrMaxLeases", other, err)
		}
		if kids := w.children(); len(kids) != 1 {
			t.Fatalf("refused client left a node: %v", kids)
		}
	}
	if _, err := w.sem(w.conn(), "c", 1).TryAcquire(w.ctx); !errors.Is(err, recipe.ErrWouldBlock) {
		t.Fatalf("second N=1 client: %v, want ErrWouldBlock", err)
	}
	w.release(a)
	// Empty again: the next client's N is the directory's.
	l := w.acquire(w.sem(w.conn(), "d", 2))
	w.release(l)
}

// A create whose reply is lost is found by its guid: no orphan.
func TestSemaphore_LostCreateReply(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	s := w.sem(w.conn(), "a", 2)
	w.release(w.acquire(s)) // the directory exists from here
	w.Once(func(_ *machine.Machine, _ int64, req proto.Request) (fakezk.Fault, bool) {
		cr, ok := req.(proto.Create)
		return fakezk.LoseReply, ok && strings.HasPrefix(cr.Path, dir+"/")
	})
	l := w.acquire(s)
	if kids := w.children(); len(kids) != 1 || ldir+"/"+kids[0] != l.Node() {
		t.Fatalf("after a lost create reply: children %v, lease %s", kids, l.Node())
	}
	w.release(l)
	if kids := w.children(); len(kids) != 0 {
		t.Fatalf("orphan left: %v", kids)
	}
}

// A waiter whose ctx ends removes its node, through connection loss, and
// its successor moves up.
func TestSemaphore_CancelCleansUpThroughConnectionLoss(t *testing.T) {
	for _, fault := range []fakezk.Fault{fakezk.LoseRequest, fakezk.LoseReply} {
		w := newWorld(t, fakezk.Config{})
		la := w.acquire(w.sem(w.conn(), "a", 1))
		bctx, cancelB := context.WithCancel(w.ctx)
		pb := w.acquireAsync(bctx, w.sem(w.conn(), "b", 1))
		w.settle(1, 2)
		pc := w.acquireAsync(w.ctx, w.sem(w.conn(), "c", 1))
		w.settle(1, 3)
		for range 2 {
			w.Once(func(_ *machine.Machine, _ int64, req proto.Request) (fakezk.Fault, bool) {
				d, ok := req.(proto.Delete)
				return fault, ok && d.Path != la.Node()
			})
		}
		cancelB()
		if _, err := pb.Wait(t, w.ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("%v: cancelled waiter: %v", fault, err)
		}
		if kids := w.children(); len(kids) != 2 {
			t.Fatalf("%v: cancelled waiter's node survived: %v", fault, kids)
		}
		w.settle(1, 2) // c is the first waiter now
		w.release(la)
		w.release(pc.Receive(t, w.ctx, "Acquire"))
		if kids := w.children(); len(kids) != 0 {
			t.Fatalf("%v: nodes left: %v", fault, kids)
		}
	}
}

// A holder whose session expires learns it at once; its fenced write is
// refused and the waiter takes the lease with a larger token.
func TestSemaphore_ExpiryWhileHolding(t *testing.T) {
	w := newWorld(t, fakezk.Config{TickMillis: 1000})
	ctx := w.ctx
	a := w.conn()
	if _, err := a.Create(ctx, "/resource", nil, zkapi.Persistent); err != nil {
		t.Fatal(err)
	}
	la := w.acquire(w.sem(a, "a", 1))
	tokA, err := la.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pb := w.acquireAsync(ctx, w.sem(w.conn(), "b", 1))
	w.settle(1, 2)
	w.srv.Disconnect(la.Session())
	w.srv.Tick(5)
	lb := pb.Receive(t, ctx, "Acquire")
	tokB, err := lb.Token(ctx)
	if err != nil || tokB <= tokA {
		t.Fatalf("new holder's token %d (%v), old %d", tokB, err, tokA)
	}
	w.srv.Reconnect(la.Session())
	if err := la.Wait(ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("stale holder's Wait: %v, want ErrLost", err)
	}
	_, err = la.Fenced(ctx, zkapi.SetOp{Path: "/resource", Data: []byte("stale"), Version: -1})
	if !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("stale fenced write: %v, want ErrLost", err)
	}
	if err := la.Release(ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("stale Release: %v, want ErrLost", err)
	}
	w.release(lb)
}

// A waiter whose session expires fails with ErrLost; the queue goes on.
func TestSemaphore_ExpiryWhileWaiting(t *testing.T) {
	w := newWorld(t, fakezk.Config{TickMillis: 1000})
	la := w.acquire(w.sem(w.conn(), "a", 1))
	b := w.conn()
	pb := w.acquireAsync(w.ctx, w.sem(b, "b", 1))
	w.settle(1, 2)
	pc := w.acquireAsync(w.ctx, w.sem(w.conn(), "c", 1))
	w.settle(1, 3)
	sid := b.Session().ID
	w.srv.Disconnect(sid)
	w.srv.Tick(5)
	w.srv.Reconnect(sid)
	if _, err := pb.Wait(t, w.ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("expired waiter: %v, want ErrLost", err)
	}
	w.release(la)
	w.release(pc.Receive(t, w.ctx, "Acquire"))
}

func TestNew_BadConfig(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	c := w.conn()
	for _, tc := range []struct {
		dir string
		n   int
		id  string
	}{{"/s", 0, "a"}, {"/s", semaphore.MaxLeases + 1, "a"}, {"s", 1, "a"}, {"/s", 1, "a-b"}} {
		if _, err := semaphore.New(c, tc.dir, tc.n, semaphore.Options{ID: tc.id}); !errors.Is(err, recipe.ErrConfig) {
			t.Errorf("New(%q, %d, %q) = %v, want ErrConfig", tc.dir, tc.n, tc.id, err)
		}
	}
}

// Recipe's Held is a Lease, with a token and fenced writes.
func TestRecipe_AcquiresALease(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	r := zoo.Semaphore(2)
	if r.Name != "semaphore/2" {
		t.Errorf("Name = %q", r.Name)
	}
	h, err := r.Acquire(w.ctx, w.conn(), dir, "c1_1")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := h.(recipe.Lease); !ok {
		t.Errorf("%T is not a recipe.Lease (Token, Fenced, ...)", h)
	}
	if err := h.Release(w.ctx); err != nil {
		t.Fatal(err)
	}
}

// A member joining the queue wakes nobody: the first waiter watches the
// leases, the others their predecessors. And a later waiter that gives up
// wakes its successor alone, not the first waiter.
func TestSemaphore_JoinAndGiveUpWakeNoFirstWaiter(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	la := w.acquire(w.sem(w.conn(), "a", 1))
	var sids []int64
	var ps []*zktest.Async[recipe.Lease]
	ctx, cancel := context.WithCancel(w.ctx)
	defer cancel()
	for i := range 3 {
		c := w.conn()
		sids = append(sids, c.Session().ID)
		wctx := w.ctx
		if i == 1 {
			wctx = ctx
		}
		ps = append(ps, w.acquireAsync(wctx, w.sem(c, fmt.Sprint("w", i), 1)))
		w.settle(1, i+2)
	}
	before := []int{w.listings(sids[0]), w.listings(sids[1]), w.listings(sids[2])}
	pd := w.acquireAsync(w.ctx, w.sem(w.conn(), "late", 1))
	w.settle(1, 5)
	cancel() // w1 gives up: w2 now waits on w0
	if _, err := ps[1].Wait(t, w.ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled waiter: %v", err)
	}
	w.settle(1, 4)
	if err := w.srv.WaitUntil(w.ctx, func(fakezk.State) bool { return w.listings(sids[2]) > before[2] }); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{0, 0, 1} {
		if got := w.listings(sids[i]) - before[i]; i != 1 && got != want {
			t.Errorf("waiter %d listed %d times, want %d", i, got, want)
		}
	}
	w.release(la)
	for _, p := range []*zktest.Async[recipe.Lease]{ps[0], ps[2], pd} {
		w.release(p.Receive(t, w.ctx, "Acquire"))
	}
}

// Bug scenario 2 (CURATOR-498): after a lost create the session expires;
// a lagging follower still lists the old session's node with the same
// guid. It is not adopted: the lease is the current session's own node.
func TestSemaphore_LostCreateOfDyingSessionNotAdopted(t *testing.T) {
	w := newWorld(t, fakezk.Config{Followers: 1})
	c, err := w.srv.Connect(fakezk.ConnOptions{Replica: 1, SessionTimeoutMs: 4000})
	if err != nil {
		t.Fatal(err)
	}
	s := w.sem(c, "a", 2)
	w.release(w.acquire(s))
	w.srv.Tick(1) // the follower caught up
	old := c.Session().ID
	w.Once(func(m *machine.Machine, sid int64, req proto.Request) (fakezk.Fault, bool) {
		if _, ok := req.(proto.Create); !ok {
			return 0, false
		}
		m.Do(sid, req)
		m.Expire(sid)
		return fakezk.LoseRequest, true
	})
	l := w.acquire(s)
	if l.Session() == old {
		t.Fatalf("lease belongs to the expired session %#x", old)
	}
	var st zkapi.Stat
	var ok bool
	w.srv.Inspect(func(m fakezk.State) { _, st, ok = m.Node(l.Node()) })
	if !ok || st.EphemeralOwner != c.Session().ID {
		t.Fatalf("lease node %s owner %#x, want the current session %#x", l.Node(), st.EphemeralOwner, c.Session().ID)
	}
	w.release(l)
}

// Bug scenario 4, for the first waiter: a holder releases between its
// plain count of the leases and the count that sets its child watch.
// That count itself shows the free lease, so the waiter takes it instead
// of waiting for a change that has already happened.
func TestSemaphore_HolderGoneBeforeTheLeasesWatch(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	la := w.acquire(w.sem(w.conn(), "a", 1))
	w.Once(func(m *machine.Machine, _ int64, req proto.Request) (fakezk.Fault, bool) {
		g, ok := req.(proto.GetChildren)
		if !ok || !g.Watch || g.Path != ldir {
			return 0, false
		}
		m.Do(la.Session(), proto.Delete{Path: la.Node(), Version: -1}) // released just now
		return fakezk.Deliver, true
	})
	lb := w.acquire(w.sem(w.conn(), "b", 1))
	w.release(lb)
}

// Bug scenario 4, for a later waiter: its predecessor leaves between the
// listing and the data watch. It lists again instead of hanging, and
// leaves no watch on the vanished node.
func TestSemaphore_PredecessorGoneBeforeWatch(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	la := w.acquire(w.sem(w.conn(), "a", 1))
	bctx, cancelB := context.WithCancel(w.ctx)
	defer cancelB()
	b := w.conn()
	pb := w.acquireAsync(bctx, w.sem(b, "b", 1))
	w.settle(1, 2)
	var bNode string
	for _, k := range w.children() {
		if strings.Contains(k, "-b.") {
			bNode = qdir + "/" + k
		}
	}
	bSID := b.Session().ID // not from inside the fault: the server is locked there
	w.Once(func(m *machine.Machine, _ int64, req proto.Request) (fakezk.Fault, bool) {
		g, ok := req.(proto.GetData)
		if !ok || !g.Watch || g.Path != bNode {
			return 0, false
		}
		m.Do(bSID, proto.Delete{Path: bNode, Version: -1}) // b gave up just now
		return fakezk.Deliver, true
	})
	pc := w.acquireAsync(w.ctx, w.sem(w.conn(), "c", 1))
	w.settle(1, 2) // c is the first waiter now
	fakehook.Inspect(w.srv, func(m *machine.Machine) {
		if data, _ := m.Watchers(0, bNode); len(data) != 0 {
			t.Errorf("dangling watch on the vanished predecessor: %x", data)
		}
	})
	cancelB()
	if _, err := pb.Wait(t, w.ctx); err == nil {
		t.Fatal("b acquired although its node was deleted")
	}
	w.release(la)
	w.release(pc.Receive(t, w.ctx, "Acquire"))
}

// A member of another N ahead of a client, even one that is not the
// oldest, makes the client refuse: counting it out would let the two N
// grant side by side once the older members leave.
func TestSemaphore_MaxLeasesMismatchBehindTheOldest(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	c := w.conn()
	a := w.acquire(w.sem(c, "a", 1))
	// A client of N=2 that has created its node and not listed yet.
	if _, err := c.Create(w.ctx, qdir+"/lease_n2-b.1-", nil, zkapi.EphemeralSequential); err != nil {
		t.Fatal(err)
	}
	if _, err := w.sem(w.conn(), "c", 1).TryAcquire(w.ctx); !errors.Is(err, semaphore.ErrMaxLeases) {
		t.Fatalf("N=1 behind an N=2 member: %v, want ErrMaxLeases", err)
	}
	w.release(a)
}
