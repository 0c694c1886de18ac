package semaphore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/fakezk/machine"
	"github.com/zksim/zksim/internal/locktest"
	"github.com/zksim/zksim/semaphore"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zktest"
)

const dir = "/sem/s"

// testTimeout bounds every test on the fake, so that a lost wake-up fails
// it instead of hanging it.
const testTimeout = 30 * time.Second

// world is a fake ZooKeeper that records every request per session and
// can apply one-shot faults.
type world struct {
	*locktest.Fake
	t   *testing.T
	ctx context.Context
	srv *fakezk.Server
}

func newWorld(t *testing.T, cfg fakezk.Config) *world {
	f := locktest.NewFake(t, cfg)
	return &world{Fake: f, t: t, ctx: zktest.Context(t, testTimeout), srv: f.Srv}
}

// listings counts the directory listings session sid has sent: one per
// wake-up of a waiter (and one per attempt).
func (w *world) listings(sid int64) int { return w.Listings(sid, dir) }

func (w *world) conn() *fakezk.Conn { return w.Conn(w.t) }

func (w *world) sem(c zkapi.Conn, id string, n int) *semaphore.Semaphore {
	s, err := semaphore.New(c, dir, n, semaphore.Options{ID: id})
	if err != nil {
		w.t.Fatal(err)
	}
	return s
}

func (w *world) acquire(s *semaphore.Semaphore) *semaphore.Lease {
	w.t.Helper()
	l, err := s.Acquire(w.ctx)
	if err != nil {
		w.t.Fatalf("Acquire: %v", err)
	}
	return l
}

func (w *world) release(l *semaphore.Lease) {
	w.t.Helper()
	if err := l.Release(w.ctx); err != nil {
		w.t.Fatalf("Release: %v", err)
	}
}

func (w *world) acquireAsync(ctx context.Context, s *semaphore.Semaphore) *zktest.Async[*semaphore.Lease] {
	return zktest.Go(w.t, ctx, s.Acquire)
}

func (w *world) children() []string {
	var kids []string
	w.srv.Inspect(func(m *machine.Machine) { kids = m.Children(dir) })
	return kids
}

// watchers returns the sessions holding a child watch on the directory
// and, per member node, its data watchers.
func (w *world) watchers() (onDir []int64, onNode map[string][]int64) {
	onNode = map[string][]int64{}
	w.srv.Inspect(func(m *machine.Machine) {
		_, onDir = m.Watchers(0, dir)
		for _, k := range m.Children(dir) {
			data, _ := m.Watchers(0, dir+"/"+k)
			onNode[k] = data
		}
	})
	return onDir, onNode
}

// settle waits until the directory has members nodes and the queue's
// watches are in place for a semaphore of n leases: one child watch on
// the directory (the first waiter's) if any waits, and one data watch on
// every waiter's node but the last.
func (w *world) settle(n, members int) {
	w.t.Helper()
	err := w.srv.WaitUntil(w.ctx, func(m *machine.Machine) bool {
		kids := m.Children(dir)
		if len(kids) != members {
			return false
		}
		sortBySeq(kids)
		if members <= n {
			return true
		}
		if _, onDir := m.Watchers(0, dir); len(onDir) != 1 {
			return false
		}
		for _, k := range kids[n : len(kids)-1] {
			if data, _ := m.Watchers(0, dir+"/"+k); len(data) == 0 {
				return false
			}
		}
		return true
	})
	if err != nil {
		w.t.Fatal(err)
	}
}

// sortBySeq orders node names by their sequence suffix.
func sortBySeq(kids []string) {
	seq := func(k string) string { return k[strings.LastIndexByte(k, '-')+1:] }
	for i := 1; i < len(kids); i++ {
		for j := i; j > 0 && seq(kids[j]) < seq(kids[j-1]); j-- {
			kids[j], kids[j-1] = kids[j-1], kids[j]
		}
	}
}
