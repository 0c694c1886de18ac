package lock_test

import (
	"context"
	"testing"
	"time"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/fakehook"
	"github.com/zksim/zksim/internal/locktest"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// testTimeout bounds every test on the fake, so that a lost wake-up fails
// it instead of hanging it; the tests take milliseconds.
const testTimeout = 30 * time.Second

// world is a fake ZooKeeper (recording requests, with one-shot faults)
// with helpers for scripted lock scenarios.
type world struct {
	*locktest.Fake
	t   *testing.T
	ctx context.Context // ends at the test's deadline
	srv *fakezk.Server
}

func newWorld(t *testing.T, cfg fakezk.Config) *world {
	f := locktest.NewFake(t, cfg)
	return &world{Fake: f, t: t, ctx: zktest.Context(t, testTimeout), srv: f.Srv}
}

func (w *world) conn() fakezk.Conn { return w.Conn(w.t) }

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
func (w *world) acquire(m *lock.Mutex) recipe.Lease {
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
	w.srv.Inspect(func(m fakezk.State) { kids = m.Children(dir) })
	return kids
}

// waitWatched blocks until someone holds a data watch on path.
func (w *world) waitWatched(path string) {
	w.t.Helper()
	err := fakehook.WaitUntil(w.ctx, w.srv, func(m *machine.Machine) bool {
		data, _ := m.Watchers(0, path)
		return len(data) > 0
	})
	if err != nil {
		w.t.Fatal(err)
	}
}

// acquireAsync runs m.Acquire under ctx on a goroutine of its own, which
// the test's cleanup checks has ended.
func (w *world) acquireAsync(ctx context.Context, m *lock.Mutex) *zktest.Async[recipe.Lease] {
	return zktest.Go(w.t, ctx, m.Acquire)
}
