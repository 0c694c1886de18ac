package election_test

import (
	"context"
	"testing"
	"time"

	"github.com/zksim/zksim/election"
	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/fakehook"
	"github.com/zksim/zksim/internal/locktest"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/zkapi"
)

const dir = "/elect/e"

// testTimeout bounds every test on the fake, so that a lost wake-up fails
// it instead of hanging it; the tests take milliseconds.
const testTimeout = 30 * time.Second

// world is a fake ZooKeeper (recording requests, with one-shot faults)
// with helpers for scripted election scenarios.
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

func (w *world) conn() fakezk.Conn { return w.Conn(w.t) }

func (w *world) election(c zkapi.Conn, id string) *election.Election {
	e, err := election.New(c, dir, election.Options{ID: id, Data: []byte(id)})
	if err != nil {
		w.t.Fatal(err)
	}
	return e
}

// campaign wins e's election or fails the test.
func (w *world) campaign(e *election.Election) *election.Leadership {
	w.t.Helper()
	l, err := e.Campaign(w.ctx)
	if err != nil {
		w.t.Fatalf("%s: Campaign: %v", e.ID(), err)
	}
	return l
}

func (w *world) resign(l *election.Leadership) {
	w.t.Helper()
	if err := l.Release(w.ctx); err != nil {
		w.t.Fatalf("Release: %v", err)
	}
}

func (w *world) campaignAsync(ctx context.Context, e *election.Election) *zktest.Async[*election.Leadership] {
	return zktest.Go(w.t, ctx, e.Campaign)
}

func (w *world) waitAsync(l *election.Leadership) *zktest.Async[struct{}] {
	return zktest.Go(w.t, w.ctx, func(ctx context.Context) (struct{}, error) { return struct{}{}, l.Wait(ctx) })
}

func (w *world) children() []string {
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

func node(w *world, p string) (data []byte, st zkapi.Stat, ok bool) {
	w.srv.Inspect(func(m fakezk.State) { data, st, ok = m.Node(p) })
	return
}

// listed returns how often session sid listed the election directory.
func (w *world) listed(sid int64) int {
	return w.Listings(sid, dir)
}
