package barrier_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/barrier"
	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/fakehook"
	"github.com/zksim/zksim/internal/locktest"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/zkapi"
)

// testTimeout bounds every test on the fake, so that a lost wake-up fails
// it instead of hanging it; the tests take milliseconds.
const testTimeout = 30 * time.Second

const dir = "/barriers/b"

// world is a fake ZooKeeper with one-shot faults and a count of watch
// wake-ups.
type world struct {
	*locktest.Fake
	t     *testing.T
	ctx   context.Context
	srv   *fakezk.Server
	wakes atomic.Int64 // watches that fired with a node event
}

// newWorld starts a fake server, by default with 1 s ticks.
func newWorld(t *testing.T, cfg ...fakezk.Config) *world {
	c := fakezk.Config{TickMillis: 1000}
	if len(cfg) > 0 {
		c = cfg[0]
	}
	f := locktest.NewFake(t, c)
	return &world{Fake: f, t: t, ctx: zktest.Context(t, testTimeout), srv: f.Srv}
}

// once adds a one-shot fault rule on the request alone.
func (w *world) once(f func(req proto.Request) (fakezk.Fault, bool)) {
	w.Once(func(_ *machine.Machine, _ int64, req proto.Request) (fakezk.Fault, bool) { return f(req) })
}

// conn opens a session (4 s timeout: 4 ticks) whose watch wake-ups count
// in w.wakes.
func (w *world) conn() (zkapi.Conn, int64) {
	c, err := w.srv.Connect(fakezk.ConnOptions{SessionTimeoutMs: 4000})
	if err != nil {
		w.t.Fatal(err)
	}
	return counting{Conn: c, wakes: &w.wakes}, c.Session().ID
}

func (w *world) double(n int, id string) (*barrier.DoubleBarrier, int64) {
	c, sid := w.conn()
	d, err := barrier.NewDouble(c, dir, n, barrier.Options{ID: id})
	if err != nil {
		w.t.Fatal(err)
	}
	return d, sid
}

func (w *world) enter(d *barrier.DoubleBarrier) *zktest.Async[*barrier.Member] {
	return zktest.Go(w.t, w.ctx, d.Enter)
}

func (w *world) leave(m *barrier.Member) *zktest.Async[struct{}] {
	return zktest.Go(w.t, w.ctx, func(ctx context.Context) (struct{}, error) { return struct{}{}, m.Leave(ctx) })
}

// children lists a directory of the fake, sorted.
func (w *world) children(p string) []string {
	var kids []string
	w.srv.Inspect(func(m fakezk.State) { kids = m.Children(p) })
	return kids
}

// exists says whether a node exists on the fake.
func (w *world) exists(p string) bool {
	var ok bool
	w.srv.Inspect(func(m fakezk.State) { _, _, ok = m.Node(p) })
	return ok
}

// waitDataWatches blocks until n sessions hold data watches on nodes
// under dir: so many members are waiting.
func (w *world) waitDataWatches(n int) {
	w.t.Helper()
	err := fakehook.WaitUntil(w.ctx, w.srv, func(m *machine.Machine) bool {
		got := 0
		for _, k := range m.Children(dir) {
			data, _ := m.Watchers(0, dir+"/"+k)
			got += len(data)
		}
		return got >= n
	})
	if err != nil {
		w.t.Fatal(err)
	}
}

// noDirWatch fails the test if anyone watches the directory's children.
func (w *world) noDirWatch() {
	w.t.Helper()
	fakehook.Inspect(w.srv, func(m *machine.Machine) {
		if _, child := m.Watchers(0, dir); len(child) != 0 {
			w.t.Errorf("sessions %x watch the directory", child)
		}
	})
}

// reapedEmpty runs the container reaper and fails the test if anything
// is left of the barrier's directory.
func (w *world) reapedEmpty() {
	w.t.Helper()
	fakehook.Inspect(w.srv, func(m *machine.Machine) { m.ReapContainers() })
	fakehook.Inspect(w.srv, func(m *machine.Machine) { m.ReapContainers() })
	if w.exists(dir) {
		w.t.Errorf("directory left after everyone left: children %v", w.children(dir))
	}
}

// counting wraps a Conn to count watch wake-ups by node events.
type counting struct {
	zkapi.Conn
	wakes *atomic.Int64
}

func (c counting) GetW(ctx context.Context, p string) ([]byte, zkapi.Stat, zkapi.Watch, error) {
	data, st, w, err := c.Conn.GetW(ctx, p)
	return data, st, countingWatch{w, c.wakes}, err
}

func (c counting) ExistsW(ctx context.Context, p string) (zkapi.Stat, bool, zkapi.Watch, error) {
	st, ok, w, err := c.Conn.ExistsW(ctx, p)
	return st, ok, countingWatch{w, c.wakes}, err
}

func (c counting) ChildrenW(ctx context.Context, p string) ([]string, zkapi.Stat, zkapi.Watch, error) {
	kids, st, w, err := c.Conn.ChildrenW(ctx, p)
	return kids, st, countingWatch{w, c.wakes}, err
}

type countingWatch struct {
	w     zkapi.Watch
	wakes *atomic.Int64
}

func (w countingWatch) Wait(ctx context.Context) (zkapi.Event, error) {
	ev, err := w.w.Wait(ctx)
	if err == nil && ev.Type != zkapi.EventNotWatching {
		w.wakes.Add(1)
	}
	return ev, err
}
