package lock_test

import (
	"context"
	"sync"
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/zkapi"
)

var ctx = context.Background()

// world is a fake ZooKeeper with helpers for scripted lock scenarios.
type world struct {
	t   *testing.T
	srv *fakezk.Server

	mu       sync.Mutex
	requests map[int64][]string // per session, what it sent
	faults   []func(m *fakezk.Machine, sid int64, req fakezk.Request) (fakezk.Fault, bool)
}

func newWorld(t *testing.T, cfg fakezk.Config) *world {
	w := &world{t: t, srv: fakezk.MustServer(cfg), requests: map[int64][]string{}}
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

// children lists the lock directory, sorted.
func (w *world) children(dir string) []string {
	var kids []string
	w.srv.Inspect(func(m *fakezk.Machine) { kids = m.Children(dir) })
	return kids
}

// waitWatched blocks until someone holds a data watch on path.
func (w *world) waitWatched(path string) {
	w.t.Helper()
	err := w.srv.WaitUntil(ctx, func(m *fakezk.Machine) bool {
		data, _ := m.Watchers(0, path)
		return len(data) > 0
	})
	if err != nil {
		w.t.Fatal(err)
	}
}

// pending is an Acquire running in its own goroutine.
type pending struct {
	done  chan struct{}
	lease *lock.Lease
	err   error
}

func acquireAsync(ctx context.Context, m *lock.Mutex) *pending {
	p := &pending{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.lease, p.err = m.Acquire(ctx)
	}()
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

func (p *pending) wait() (*lock.Lease, error) {
	<-p.done
	return p.lease, p.err
}
