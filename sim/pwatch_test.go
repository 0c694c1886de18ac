package sim_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zkapi"
)

// watchScenario: c1 watches /dir recursively, creates /dir/go and takes
// three events; c2 waits for /dir/go, then creates /dir/a and /dir/b.
// Each run records, for every event c1 took, how many creates c2 had
// made by then.
type watchScenario struct {
	seen map[string]bool
	sig  []string
	made int
}

func (w *watchScenario) Start(s *sim.Sim) ([]sim.Program, sim.Judge) {
	w.sig, w.made = nil, 0
	m := s.State().(*machine.Machine) // the whole Machine, as the module sets a run up
	info, _ := m.CreateSession(0, 4000)
	m.Do(info.ID, proto.Create{Path: "/dir", Mode: zkapi.Persistent})
	m.CloseSession(info.ID)
	watcher := func(ctx context.Context, c *sim.Client) error {
		pw, err := c.Conn().(zkapi.PersistentWatcher).AddWatch(ctx, "/dir", true)
		if err != nil {
			return err
		}
		if _, err := c.Conn().Create(ctx, "/dir/go", nil, zkapi.Persistent); err != nil {
			return err
		}
		for range 3 {
			ev, err := pw.Next(ctx)
			if err != nil {
				return err
			}
			w.sig = append(w.sig, fmt.Sprintf("%s@%d", ev.Path, w.made))
			w.seen[w.sig[len(w.sig)-1]] = true
		}
		return pw.Remove(ctx)
	}
	writer := func(ctx context.Context, c *sim.Client) error {
		for {
			_, ok, ew, err := c.Conn().ExistsW(ctx, "/dir/go")
			if err != nil {
				return err
			}
			if ok {
				break
			}
			if _, err := ew.Wait(ctx); err != nil {
				return err
			}
		}
		for _, p := range []string{"/dir/a", "/dir/b"} {
			if _, err := c.Conn().Create(ctx, p, nil, zkapi.Persistent); err != nil {
				return err
			}
			w.made++
		}
		return nil
	}
	return []sim.Program{watcher, writer}, w
}

func (w *watchScenario) Invariant(*sim.Sim) *check.Violation { return nil }
func (w *watchScenario) Visible() int                        { return len(w.sig) }
func (w *watchScenario) Verdict(res *sim.Result) []check.Class {
	if res.Deadlock || res.Bounded {
		return []check.Class{"stuck"}
	}
	return nil
}

// A persistent watch's events are scheduled like one-shot watch events:
// the search delivers them before, between and after the writer's
// requests.
func TestExplore_PersistentWatchEventsInterleave(t *testing.T) {
	w := &watchScenario{seen: map[string]bool{}}
	var cfg sim.Config
	x, err := sim.Explore(context.Background(), cfg, w, sim.Bounds{Deviations: 3})
	if err != nil {
		t.Fatal(err)
	}
	if x.Failure != nil || !x.Exhausted {
		t.Fatalf("failure %v, exhausted %v", x.Failure, x.Exhausted)
	}
	got := slices.Sorted(func(yield func(string) bool) {
		for s := range w.seen {
			if !yield(s) {
				return
			}
		}
	})
	// c1 takes c2's events before c2 learns its create succeeded, or
	// after. Its own create's event it always has first: the server
	// sends it before the create's reply, and Next then returns at once.
	want := []string{"/dir/a@0", "/dir/a@1", "/dir/a@2", "/dir/b@1", "/dir/b@2", "/dir/go@0"}
	if !slices.Equal(got, want) {
		t.Errorf("orders seen: %q, want %q", got, want)
	}
}

// Under a seeded random walk with disconnects, the watch is set again on
// reconnect, and the trace shows each event delivered.
func TestRun_PersistentWatchTraced(t *testing.T) {
	w := &watchScenario{seen: map[string]bool{}}
	var cfg sim.Config
	s, err := sim.New(cfg, sim.NewSeeded(1))
	if err != nil {
		t.Fatal(err)
	}
	progs, _ := w.Start(s)
	res := s.Run(progs...)
	trace := sim.TraceString(res.Trace)
	for _, want := range []string{"addwatch /dir recursive", "recv c1 NodeCreated /dir/a", "recv c1 NodeCreated /dir/b", "removewatches /dir any"} {
		if !strings.Contains(trace, want) {
			t.Errorf("trace lacks %q:\n%s", want, trace)
		}
	}
	if slices.ContainsFunc(res.Errors, func(err error) bool { return err != nil }) {
		t.Errorf("errors %v\n%s", res.Errors, trace)
	}
}
