package semaphore_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/fakehook"
	"github.com/zksim/zksim/internal/locktest"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/semaphore"
	"github.com/zksim/zksim/zkapi"
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

// The semaphore's two children: the waiting members, and the leases.
const (
	qdir = dir + "/queue"
	ldir = dir + "/leases"
)

// listings counts the queue listings session sid has sent: one per
// wake-up of a waiter (and one per attempt).
func (w *world) listings(sid int64) int { return w.Listings(sid, qdir) }

func (w *world) conn() fakezk.Conn { return w.Conn(w.t) }

func (w *world) sem(c zkapi.Conn, id string, n int) *semaphore.Semaphore {
	s, err := semaphore.New(c, dir, n, semaphore.Options{ID: id})
	if err != nil {
		w.t.Fatal(err)
	}
	return s
}

func (w *world) acquire(s *semaphore.Semaphore) recipe.Lease {
	w.t.Helper()
	l, err := s.Acquire(w.ctx)
	if err != nil {
		w.t.Fatalf("Acquire: %v", err)
	}
	return l
}

func (w *world) release(l recipe.Lease) {
	w.t.Helper()
	if err := l.Release(w.ctx); err != nil {
		w.t.Fatalf("Release: %v", err)
	}
}

func (w *world) acquireAsync(ctx context.Context, s *semaphore.Semaphore) *zktest.Async[recipe.Lease] {
	return zktest.Go(w.t, ctx, s.Acquire)
}

// children lists the members' nodes: those waiting in the queue, then
// the leases.
func (w *world) children() []string {
	var kids []string
	w.srv.Inspect(func(m fakezk.State) { kids = append(m.Children(qdir), m.Children(ldir)...) })
	return kids
}

// queued lists the queue's nodes by sequence.
func queued(m *machine.Machine) []string {
	kids := m.Children(qdir)
	sortBySeq(kids)
	return kids
}

// watchers returns the sessions holding a child watch on the leases and,
// per queue node, its data watchers.
func (w *world) watchers() (onLeases []int64, onNode map[string][]int64) {
	onNode = map[string][]int64{}
	fakehook.Inspect(w.srv, func(m *machine.Machine) {
		_, onLeases = m.Watchers(0, ldir)
		for _, k := range m.Children(qdir) {
			data, _ := m.Watchers(0, qdir+"/"+k)
			onNode[k] = data
		}
	})
	return onLeases, onNode
}

// settle waits until the semaphore of n leases has members in all, the
// leases taken, and the waiters' watches in place: of the waiters, the
// first alone holds a child watch on the leases, and one data watch is
// on every waiter's node but the last. A session with no node in the
// queue may still hold a child watch on the leases: a waiter that gave
// up while first leaves its one-shot watch, which fires once and wakes
// nobody.
func (w *world) settle(n, members int) {
	w.t.Helper()
	err := fakehook.WaitUntil(w.ctx, w.srv, func(m *machine.Machine) bool {
		q, leases := queued(m), m.Children(ldir)
		if len(leases) != min(n, members) || len(q) != members-len(leases) {
			return false
		}
		if len(q) == 0 {
			return true
		}
		_, onLeases := m.Watchers(0, ldir)
		for i, k := range q {
			_, st, _ := m.Node(qdir + "/" + k)
			if slices.Contains(onLeases, st.EphemeralOwner) != (i == 0) {
				return false
			}
		}
		for _, k := range q[:len(q)-1] {
			if data, _ := m.Watchers(0, qdir+"/"+k); len(data) == 0 {
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
