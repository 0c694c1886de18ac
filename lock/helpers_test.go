package lock_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/fakezk/machine"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zktest"
)

// testTimeout bounds every test on the fake, so that a lost wake-up fails
// it instead of hanging it; the tests take milliseconds.
const testTimeout = 30 * time.Second

// world is a fake ZooKeeper with helpers for scripted lock scenarios.
type world struct {
	t   *testing.T
	ctx context.Context // ends at the test's deadline
	srv *fakezk.Server

	mu       sync.Mutex
	requests map[int64][]string // per session, what it sent
	faults   []func(m *machine.Machine, sid int64, req machine.Request) (fakezk.Fault, bool)
}

func newWorld(t *testing.T, cfg fakezk.Config) *world {
	w := &world{t: t, ctx: zktest.Context(t, testTimeout), srv: fakezk.MustServer(cfg), requests: map[int64][]string{}}
	w.srv.Intercept(w.intercept)
	t.Cleanup(func() { w.srv.Close() })
	return w
}

// intercept records every request and applies the first matching fault
// rule, which is then used up.
func (w *world) intercept(m *machine.Machine, sid int64, req machine.Request) fakezk.Fault {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.requests[sid] = append(w.requests[sid], req.String())
	for i, f := range w.faults {
		if fault, ok := f(m, sid, req); ok {
			w.faults = append(w.faults[:i], w.faults[i+1:]...)
			return fault
		}
	}
	return fakezk.Deliver
}

// once adds a one-shot fault rule.
func (w *world) once(f func(m *machine.Machine, sid int64, req machine.Request) (fakezk.Fault, bool)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.faults = append(w.faults, f)
}

func (w *world) sent(sid int64) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.requests[sid]...)
}

func (w *world) conn() *fakezk.Conn {
	c, err := w.srv.Connect(fakezk.ConnOptions{SessionTimeoutMs: 4000})
	if err != nil {
		w.t.Fatal(err)
	}
	return c
}

func (w *world) mutex(c zkapi.Conn, id string, opts ...func(*lock.Options)) *lock.Mutex {
	o := lock.Options{ID: id}
	for _, f := range opts {
		f(&o)
	}
	m, err := lock.New(c, "/locks/l", o)
	if err != nil {
		w.t.Fatal(err)
	}
	return m
}

// acquire takes m's lock or fails the test.
func (w *world) acquire(m *lock.Mutex) *lock.Lease {
	w.t.Helper()
	l, err := m.Acquire(w.ctx)
	if err != nil {
		w.t.Fatalf("%s: Acquire: %v", m.ID(), err)
	}
	return l
}

// release releases a lease or fails the test.
func (w *world) release(l interface{ Release(context.Context) error }) {
	w.t.Helper()
	if err := l.Release(w.ctx); err != nil {
		w.t.Fatalf("Release: %v", err)
	}
}

// children lists the lock directory, sorted.
func (w *world) children(dir string) []string {
	var kids []string
	w.srv.Inspect(func(m *machine.Machine) { kids = m.Children(dir) })
	return kids
}

// waitWatched blocks until someone holds a data watch on path.
func (w *world) waitWatched(path string) {
	w.t.Helper()
	err := w.srv.WaitUntil(w.ctx, func(m *machine.Machine) bool {
		data, _ := m.Watchers(0, path)
		return len(data) > 0
	})
	if err != nil {
		w.t.Fatal(err)
	}
}

// acquireAsync runs m.Acquire under ctx on a goroutine of its own, which
// the test's cleanup checks has ended.
func (w *world) acquireAsync(ctx context.Context, m *lock.Mutex) *zktest.Async[*lock.Lease] {
	return zktest.Go(w.t, ctx, m.Acquire)
}
