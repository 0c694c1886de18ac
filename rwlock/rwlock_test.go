package rwlock_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/fakehook"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/rwlock"
	"github.com/zksim/zksim/zkapi"
)

const dir = "/rw"

// testTimeout bounds every test on the fake, so that a lost wake-up fails
// it instead of hanging it; the tests take milliseconds.
const testTimeout = 30 * time.Second

type world struct {
	t   *testing.T
	ctx context.Context // ends at the test's deadline
	srv *fakezk.Server
}

func newWorld(t *testing.T) *world {
	w := &world{t: t, ctx: zktest.Context(t, testTimeout), srv: fakezk.MustServer(fakezk.Config{})}
	t.Cleanup(func() { w.srv.Close() })
	return w
}

func (w *world) rw(id string) *rwlock.RWMutex {
	w.t.Helper()
	c, err := w.srv.Connect(fakezk.ConnOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	m, err := rwlock.New(c, dir, rwlock.Options{ID: id})
	if err != nil {
		w.t.Fatal(err)
	}
	return m
}

// acquire calls an Acquire method and fails the test if it fails.
func (w *world) acquire(f func(context.Context) (*rwlock.Lease, error)) *rwlock.Lease {
	w.t.Helper()
	l, err := f(w.ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	return l
}

// release releases a lease or fails the test.
func (w *world) release(l *rwlock.Lease) {
	w.t.Helper()
	if err := l.Release(w.ctx); err != nil {
		w.t.Fatalf("Release %s: %v", l.Node(), err)
	}
}

// token reads a lease's fencing token or fails the test.
func (w *world) token(l *rwlock.Lease) int64 {
	w.t.Helper()
	tok, err := l.Token(w.ctx)
	if err != nil {
		w.t.Fatalf("Token %s: %v", l.Node(), err)
	}
	return tok
}

// async runs acquire under the test's context on a goroutine of its own,
// which the test's cleanup checks has ended.
func (w *world) async(acquire func(context.Context) (*rwlock.Lease, error)) *zktest.Async[*rwlock.Lease] {
	return zktest.Go(w.t, w.ctx, acquire)
}

// waiters blocks until n data watches are set in the directory.
func (w *world) waiters(n int) {
	w.t.Helper()
	err := fakehook.WaitUntil(w.ctx, w.srv, func(m *machine.Machine) bool {
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
	fakehook.Inspect(w.srv, func(m *machine.Machine) { d, _ := m.Watchers(0, l.Node()); n = len(d) })
	return n
}

// Readers share; a writer excludes; a reader behind a writer waits for the
// writer only, and a writer waits for its immediate predecessor only.
func TestRWMutex_ReadersShareWritersExclude(t *testing.T) {
	w := newWorld(t)
	r1 := w.acquire(w.rw("r1").AcquireRead)
	r2 := w.acquire(w.rw("r2").AcquireRead)
	pw := w.async(w.rw("w").Acquire)
	w.waiters(1)
	if w.watchersOf(r2) != 1 || w.watchersOf(r1) != 0 {
		t.Fatal("writer does not watch only its immediate predecessor")
	}
	pr3 := w.async(w.rw("r3").AcquireRead)
	pr4 := w.async(w.rw("r4").AcquireRead)
	w.waiters(3)
	w.release(r1)
	w.release(r2)
	wl := pw.Receive(t, w.ctx, "Acquire")
	if pr3.Returned() || pr4.Returned() {
		t.Fatal("reader got in with a writer holding")
	}
	if _, err := w.rw("x").TryAcquireRead(w.ctx); !errors.Is(err, recipe.ErrWouldBlock) {
		t.Fatalf("TryAcquireRead under a writer: %v", err)
	}
	w.release(wl)
	w.release(pr3.Receive(t, w.ctx, "Acquire"))
	w.release(pr4.Receive(t, w.ctx, "Acquire"))
}

// Bug scenario 9 (kazoo #649): writer held, reader waits, second writer
// queues, first writer releases: the reader then the second writer get the
// lock; no deadlock. A writer's release wakes only grantable readers.
func TestRWMutex_WriterReaderWriter(t *testing.T) {
	w := newWorld(t)
	w1 := w.acquire(w.rw("w1").Acquire)
	pr := w.async(w.rw("r").AcquireRead)
	w.waiters(1)
	pw2 := w.async(w.rw("w2").Acquire)
	w.waiters(2)
	if w.watchersOf(w1) != 1 {
		t.Fatalf("w1 has %d watchers, want the reader only", w.watchersOf(w1))
	}
	w.release(w1)
	r := pr.Receive(t, w.ctx, "Acquire")
	if pw2.Returned() {
		t.Fatal("second writer got in with a reader holding")
	}
	w.release(r)
	w.release(pw2.Receive(t, w.ctx, "Acquire"))
}

// Bug scenario 9 (CURATOR-621): downgrade while a writer waits. The
// downgraded holder keeps the lock as a reader, the waiting writer does not
// get in, readers queued before that writer do.
func TestRWMutex_DowngradeWithWriterWaiting(t *testing.T) {
	w := newWorld(t)
	w1 := w.acquire(w.rw("w1").Acquire)
	if !w1.IsWrite() {
		t.Fatal("a write lease says it is not")
	}
	tok1 := w.token(w1)
	pr := w.async(w.rw("r").AcquireRead) // queued before the writer
	w.waiters(1)
	pw2 := w.async(w.rw("w2").Acquire)
	w.waiters(2)
	if err := w1.Downgrade(w.ctx); err != nil {
		t.Fatal(err)
	}
	if w1.IsWrite() {
		t.Fatal("still a write lease after downgrade")
	}
	r := pr.Receive(t, w.ctx, "Acquire") // shares with the downgraded holder
	if pw2.Returned() {
		t.Fatal("waiting writer got in during the downgrade")
	}
	if tok := w.token(w1); tok != tok1 {
		t.Fatalf("downgrade changed the token %d -> %d", tok1, tok)
	}
	if _, err := w.rw("late").TryAcquireRead(w.ctx); !errors.Is(err, recipe.ErrWouldBlock) {
		t.Fatalf("a reader behind the waiting writer got in: %v", err)
	}
	w.release(w1)
	if pw2.Returned() {
		t.Fatal("writer got in with a reader still holding")
	}
	w.release(r)
	w.release(pw2.Receive(t, w.ctx, "Acquire"))
	if err := w1.Downgrade(w.ctx); err == nil {
		t.Fatal("downgrade of a read lease accepted")
	}
}

// Upgrade is refused at once rather than waiting for itself.
func TestRWMutex_UpgradeRefused(t *testing.T) {
	w := newWorld(t)
	m := w.rw("a")
	r := w.acquire(m.AcquireRead)
	if _, err := m.Acquire(w.ctx); !errors.Is(err, rwlock.ErrUpgrade) {
		t.Fatalf("upgrade: %v, want ErrUpgrade", err)
	}
	w.release(r)
	wl, err := m.Acquire(w.ctx)
	if err != nil {
		t.Fatalf("write after releasing the read lease: %v", err)
	}
	w.release(wl)
}

// Session loss and fencing work as for lock: an expired writer is told and
// its fenced write refused.
func TestRWMutex_ExpiredWriterFenced(t *testing.T) {
	w := newWorld(t)
	wl := w.acquire(w.rw("a").Acquire)
	var sid int64
	w.srv.Inspect(func(mc fakezk.State) {
		_, st, _ := mc.Node(wl.Node())
		sid = st.EphemeralOwner
	})
	if err := w.srv.Expire(sid); err != nil {
		t.Fatal(err)
	}
	if err := wl.Check(); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("Check: %v", err)
	}
	if _, err := wl.Fenced(w.ctx, zkapi.CreateOp{Path: "/x"}); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("Fenced: %v", err)
	}
	if err := wl.Downgrade(w.ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("Downgrade: %v", err)
	}
}

// New checks the lock path and holder id by lock's rules, and a handle
// with no ID gets one that names its nodes.
func TestNew_ChecksPathAndID(t *testing.T) {
	w := newWorld(t)
	c, err := w.srv.Connect(fakezk.ConnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][2]string{{"rel", "ok"}, {"/", "ok"}, {"/a/", "ok"}, {"/a", "has-dash"}} {
		if _, err := rwlock.New(c, bad[0], rwlock.Options{ID: bad[1]}); !errors.Is(err, recipe.ErrConfig) {
			t.Errorf("New(%q, ID %q) = %v, want ErrConfig", bad[0], bad[1], err)
		}
	}
	rw, err := rwlock.New(c, dir, rwlock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := rw.Acquire(w.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(w.ctx)
	if n := l.Node(); !strings.HasPrefix(n, dir+"/write-") || strings.HasPrefix(n, dir+"/write-.") {
		t.Errorf("node %s has no holder id", n)
	}
}
