package rwlock_test

import (
	"context"
	"errors"
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/rwlock"
	"github.com/zksim/zksim/zkapi"
)

var ctx = context.Background()

const dir = "/rw"

type world struct {
	t   *testing.T
	srv *fakezk.Server
}

func newWorld(t *testing.T) *world {
	w := &world{t: t, srv: fakezk.MustServer(fakezk.Config{})}
	t.Cleanup(func() { w.srv.Close() })
	return w
}

func (w *world) rw(id string) *rwlock.RWMutex {
	c, err := w.srv.Connect(fakezk.ConnOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	m, err := rwlock.New(c, dir, lock.Options{ID: id})
	if err != nil {
		w.t.Fatal(err)
	}
	return m
}

type pending struct {
	done  chan struct{}
	lease *rwlock.Lease
	err   error
}

func async(f func(context.Context) (*rwlock.Lease, error)) *pending {
	p := &pending{done: make(chan struct{})}
	go func() { defer close(p.done); p.lease, p.err = f(ctx) }()
	return p
}

func (p *pending) finished() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *pending) wait(t *testing.T) *rwlock.Lease {
	t.Helper()
	<-p.done
	if p.err != nil {
		t.Fatal(p.err)
	}
	return p.lease
}

// waiters blocks until n data watches are set in the directory.
func (w *world) waiters(n int) {
	w.t.Helper()
	err := w.srv.WaitUntil(ctx, func(m *fakezk.Machine) bool {
		total := 0
		for _, k := range m.Children(dir) {
			d, _ := m.Watchers(0, dir+"/"+k)
			total += len(d)
		}
		return total == n
	})
	if err != nil {
		w.t.Fatal(err)
	}
}

// watchersOf reports how many sessions watch the node of a lease.
func (w *world) watchersOf(l *rwlock.Lease) int {
	var n int
	w.srv.Inspect(func(m *fakezk.Machine) { d, _ := m.Watchers(0, l.Node()); n = len(d) })
	return n
}

// Readers share; a writer excludes; a reader behind a writer waits for the
// writer only, and a writer waits for its immediate predecessor only.
func TestRWMutex_ReadersShareWritersExclude(t *testing.T) {
	w := newWorld(t)
	r1, err := w.rw("r1").AcquireRead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := w.rw("r2").AcquireRead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pw := async(w.rw("w").Acquire)
	w.waiters(1)
	if w.watchersOf(r2) != 1 || w.watchersOf(r1) != 0 {
		t.Fatal("writer does not watch only its immediate predecessor")
	}
	pr3 := async(w.rw("r3").AcquireRead)
	pr4 := async(w.rw("r4").AcquireRead)
	w.waiters(3)
	r1.Release(ctx)
	r2.Release(ctx)
	wl := pw.wait(t)
	if pr3.finished() || pr4.finished() {
		t.Fatal("reader got in with a writer holding")
	}
	if _, err := w.rw("x").TryAcquireRead(ctx); !errors.Is(err, lock.ErrWouldBlock) {
		t.Fatalf("TryAcquireRead under a writer: %v", err)
	}
	wl.Release(ctx)
	pr3.wait(t).Release(ctx)
	pr4.wait(t).Release(ctx)
}

// Bug scenario 9 (kazoo #649): writer held, reader waits, second writer
// queues, first writer releases: the reader then the second writer get the
// lock; no deadlock. A writer's release wakes only grantable readers.
func TestRWMutex_WriterReaderWriter(t *testing.T) {
	w := newWorld(t)
	w1, _ := w.rw("w1").Acquire(ctx)
	pr := async(w.rw("r").AcquireRead)
	w.waiters(1)
	pw2 := async(w.rw("w2").Acquire)
	w.waiters(2)
	if w.watchersOf(w1) != 1 {
		t.Fatalf("w1 has %d watchers, want the reader only", w.watchersOf(w1))
	}
	w1.Release(ctx)
	r := pr.wait(t)
	if pw2.finished() {
		t.Fatal("second writer got in with a reader holding")
	}
	r.Release(ctx)
	pw2.wait(t).Release(ctx)
}

// Bug scenario 9 (CURATOR-621): downgrade while a writer waits. The
// downgraded holder keeps the lock as a reader, the waiting writer does not
// get in, readers queued before that writer do.
func TestRWMutex_DowngradeWithWriterWaiting(t *testing.T) {
	w := newWorld(t)
	w1, _ := w.rw("w1").Acquire(ctx)
	tok1, _ := w1.Token(ctx)
	pr := async(w.rw("r").AcquireRead) // queued before the writer
	w.waiters(1)
	pw2 := async(w.rw("w2").Acquire)
	w.waiters(2)
	if err := w1.Downgrade(ctx); err != nil {
		t.Fatal(err)
	}
	if w1.Write() {
		t.Fatal("still a write lease after downgrade")
	}
	r := pr.wait(t) // shares with the downgraded holder
	if pw2.finished() {
		t.Fatal("waiting writer got in during the downgrade")
	}
	if tok, _ := w1.Token(ctx); tok != tok1 {
		t.Fatalf("downgrade changed the token %d -> %d", tok1, tok)
	}
	if _, err := w.rw("late").TryAcquireRead(ctx); !errors.Is(err, lock.ErrWouldBlock) {
		t.Fatalf("a reader behind the waiting writer got in: %v", err)
	}
	w1.Release(ctx)
	if pw2.finished() {
		t.Fatal("writer got in with a reader still holding")
	}
	r.Release(ctx)
	pw2.wait(t).Release(ctx)
	if err := w1.Downgrade(ctx); err == nil {
		t.Fatal("downgrade of a read lease accepted")
	}
}

// Upgrade is refused at once rather than waiting for itself.
func TestRWMutex_UpgradeRefused(t *testing.T) {
	w := newWorld(t)
	m := w.rw("a")
	r, _ := m.AcquireRead(ctx)
	if _, err := m.Acquire(ctx); !errors.Is(err, rwlock.ErrUpgrade) {
		t.Fatalf("upgrade: %v, want ErrUpgrade", err)
	}
	r.Release(ctx)
	wl, err := m.Acquire(ctx)
	if err != nil {
		t.Fatalf("write after releasing the read lease: %v", err)
	}
	wl.Release(ctx)
}

// Session loss and fencing work as for lock: an expired writer is told and
// its fenced write refused.
func TestRWMutex_ExpiredWriterFenced(t *testing.T) {
	w := newWorld(t)
	m := w.rw("a")
	wl, _ := m.Acquire(ctx)
	var sid int64
	w.srv.Inspect(func(mc *fakezk.Machine) {
		_, st, _ := mc.Node(wl.Node())
		sid = st.EphemeralOwner
	})
	w.srv.Expire(sid)
	if err := wl.Check(); !errors.Is(err, lock.ErrLost) {
		t.Fatalf("Check: %v", err)
	}
	if _, err := wl.Fenced(ctx, zkapi.CreateOp{Path: "/x"}); !errors.Is(err, lock.ErrLost) {
		t.Fatalf("Fenced: %v", err)
	}
	if err := wl.Downgrade(ctx); !errors.Is(err, lock.ErrLost) {
		t.Fatalf("Downgrade: %v", err)
	}
}

func TestNew_RejectsReentrant(t *testing.T) {
	w := newWorld(t)
	c, _ := w.srv.Connect(fakezk.ConnOptions{})
	if _, err := rwlock.New(c, dir, lock.Options{Reentrant: true}); !errors.Is(err, lock.ErrConfig) {
		t.Fatalf("got %v", err)
	}
}
