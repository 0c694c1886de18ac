package lock_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zktest"
)

// testTimeout bounds every test on the fake, so that a lost wake-up fails
// it instead of hanging it; the tests take milliseconds.
const testTimeout = 30 * time.Second

// settleTimeout bounds how long a goroutine a test started may take to end
// once the test's context is cancelled. Nothing waits for it to pass.
const settleTimeout = 10 * time.Second

// world is a fake ZooKeeper with helpers for scripted lock scenarios.
type world struct {
	t   *testing.T
	ctx context.Context // ends at the test's deadline
	srv *fakezk.Server

	mu       sync.Mutex
	requests map[int64][]string // per session, what it sent
	faults   []func(m *fakezk.Machine, sid int64, req fakezk.Request) (fakezk.Fault, bool)
}

func newWorld(t *testing.T, cfg fakezk.Config) *world {
	w := &world{t: t, ctx: zktest.Context(t, testTimeout), srv: fakezk.MustServer(cfg), requests: map[int64][]string{}}
	w.srv.Intercept(w.intercept)
	t.Cleanup(func() { w.srv.Close() })
	return w
}

// intercept records every request and applies the first matching fault
// rule, which is then used up.
func (w *world) intercept(m *fakezk.Machine, sid int64, req fakezk.Request) fakezk.Fault {
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
func (w *world) once(f func(m *fakezk.Machine, sid int64, req fakezk.Request) (fakezk.Fault, bool)) {
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
	w.srv.Inspect(func(m *fakezk.Machine) { kids = m.Children(dir) })
	return kids
}

// waitWatched blocks until someone holds a data watch on path.
func (w *world) waitWatched(path string) {
	w.t.Helper()
	err := w.srv.WaitUntil(w.ctx, func(m *fakezk.Machine) bool {
		data, _ := m.Watchers(0, path)
		return len(data) > 0
	})
	if err != nil {
		w.t.Fatal(err)
	}
}

// pending is a call (an Acquire, a Wait) running in its own goroutine
// while the test steers the server. The test's cleanup checks that the
// goroutine ended.
type pending[T any] struct {
	w    *world
	done chan struct{}
	val  T // written before done is closed
	err  error
}

// async runs f in a goroutine of its own; f must return once the test's
// context ends.
func async[T any](w *world, f func() (T, error)) *pending[T] {
	p := &pending[T]{w: w, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.val, p.err = f()
	}()
	w.t.Cleanup(func() { // the test's context is already cancelled here
		select {
		case <-p.done:
		case <-time.After(settleTimeout):
			w.t.Error("a goroutine of the test did not end once its context was cancelled")
		}
	})
	return p
}

func (w *world) acquireAsync(ctx context.Context, m *lock.Mutex) *pending[*lock.Lease] {
	return async(w, func() (*lock.Lease, error) { return m.Acquire(ctx) })
}

func (p *pending[T]) finished() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// wait returns the call's results; a call still running at the test's
// deadline fails the test.
func (p *pending[T]) wait() (T, error) {
	p.w.t.Helper()
	select {
	case <-p.done:
	case <-p.w.ctx.Done():
		p.w.t.Fatalf("call had not returned by the test's deadline: %v", p.w.ctx.Err())
	}
	return p.val, p.err
}

// held waits for the call and fails the test if it failed.
func (p *pending[T]) held() T {
	p.w.t.Helper()
	v, err := p.wait()
	if err != nil {
		p.w.t.Fatal(err)
	}
	return v
}
