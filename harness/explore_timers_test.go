package harness_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zoo"
)

// timerWorkload is the workload the timer exhibits are searched with: 3
// clients x 1 acquisition of the zoo's workload (acquire deadlines of 12
// ticks on half the acquisitions), each hold 5 ticks, so that a waiter's
// deadline (or a crashed waiter's session, 4 ticks) can end while the
// holder before it still holds.
func timerWorkload(ex zoo.Exhibit) harness.Subject {
	s := zooSettings(ex)
	s.Clients, s.Acquisitions, s.HoldTicks = 3, 1, 5
	w := harness.Lock(ex.Recipe, s)
	return w
}

// timerBounds are the default bounds of the search (zksim run -strategy
// exhaustive's: 2 deviations, early ticks each a deviation).
var timerBounds = sim.Bounds{Deviations: 2}

// timerNames are the exhibits whose bug needs a timer to fire while
// another client is between two requests.
var timerNames = []string{zoo.NameElectAbsence, zoo.NameLiveAbsence}

// The timer exhibits are found by the search at its default bounds, with
// their class, where the model without early ticks exhausts the same
// bounds and finds nothing: their bug needs an acquire deadline to fire
// while another client is between its getChildren and its exists. No
// faults: the deadlines are enough (the long test below has them all).
func TestExplore_FindsTimerBugs(t *testing.T) {
	for _, name := range timerNames {
		t.Run(name, func(t *testing.T) {
			testTimerBug(t, name, sim.Config{})
		})
	}
}

// The same with one fault of each kind, zksim run -strategy exhaustive's
// default: each search covers a few million states (about 5 minutes in
// all), so it is a benchmark, run by hand or by scripts/bench.sh with
// BENCH_EXHAUST=1, not a test of the suite:
//
//	go test -run - -bench ExploreTimerBugsUnderFaults -benchtime 1x ./harness
func BenchmarkExploreTimerBugsUnderFaults(b *testing.B) {
	for range b.N {
		for _, name := range timerNames {
			b.Run(name, func(b *testing.B) {
				testTimerBug(b, name, sim.Config{Faults: exploreFaults})
			})
		}
	}
}

func testTimerBug(t testing.TB, name string, cfg sim.Config) {
	ex, _ := zoo.Lookup(name)
	w, b := timerWorkload(ex), timerBounds
	b.Class = ex.Violation
	res := exploreFor(t, ex, cfg, w, b)
	t.Logf("%s at %d deviations after %d states in the last pass", ex.Violation, res.Deviation, res.States)
	b.NoEarlyTicks = true
	old, err := harness.Explore(context.Background(), cfg, w, b)
	if err != nil {
		t.Fatal(err)
	}
	if old.Counterexample != nil || !old.Exhausted {
		t.Fatalf("without early ticks, want the bounds exhausted with no counterexample: %s", old.Coverage())
	}
	t.Logf("without early ticks: %s", old.Coverage())
}

// A semaphore that retries without waiting does not keep time frozen: the
// search lets time pass with its requests, so the holders' holds end, and
// it finds the real bug (max-leases) where time frozen showed only
// no-progress after the step bound.
func TestExplore_BusyRetryFindsMaxLeases(t *testing.T) {
	ex, _ := zoo.Lookup(zoo.NameSemBusyCount)
	s := zooSettings(ex)
	s.Clients, s.Acquisitions = 3, 1
	w := harness.Lock(ex.Recipe, s)
	res, err := harness.Explore(context.Background(), sim.Config{Faults: exploreFaults}, w, sim.Bounds{Deviations: 2})
	if err != nil {
		t.Fatal(err)
	}
	ce := res.Counterexample
	if ce == nil {
		t.Fatalf("no counterexample within %s", res.Coverage())
	}
	if got := ce.Report.Classes(); !slices.Contains(got, check.MaxLeases) || slices.Contains(got, check.NoProgress) {
		t.Fatalf("counterexample shows %v, want max-leases and no no-progress", got)
	}
}

// busyLock is a good lock that never waits: the queue lock whose Watch
// step lists again at once instead of watching its predecessor.
func busyLock() recipe.Lock {
	listAgain := func(context.Context, *queue.Hold, string, bool) (queue.Wake, error) { return queue.Changed, nil }
	return recipe.Lock{Name: "busy", Acquire: func(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error) {
		h, err := queue.Enqueue(ctx, queue.Queue{Conn: conn, Dir: dir}, queue.Request{
			Kind: "lock", GUID: id, Data: []byte(id), Kinds: []string{"lock"}, Rule: queue.Predecessor,
			Steps: queue.Steps{Watch: listAgain},
		})
		if err != nil {
			return nil, err
		}
		return busyHeld{h}, nil
	}}
}

type busyHeld struct{ h *queue.Hold }

func (b busyHeld) Release(ctx context.Context) error {
	if err := b.h.Release(ctx); err != nil && !errors.Is(err, queue.ErrSessionLost) {
		return err
	}
	return nil
}

// A good lock that retries without waiting is not reported no-progress:
// its spinning lets the holder's hold end, and every schedule within the
// bounds finishes. With time frozen while it spins (SpinRequests -1), the
// default schedule alone runs into the step bound.
func TestExplore_BusyRetryIsNotNoProgress(t *testing.T) {
	w := harness.Lock(busyLock(), harness.Workload{Clients: 2, Acquisitions: 1})
	res, err := harness.Explore(context.Background(), sim.Config{}, w, sim.Bounds{Deviations: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ce := res.Counterexample; ce != nil {
		t.Fatalf("a good busy lock failed: %v\n%s", ce.Report.Classes(), res.Coverage())
	}
	if !res.Exhausted {
		t.Fatalf("not exhausted: %s", res.Coverage())
	}
	frozen, err := harness.Explore(context.Background(), sim.Config{SpinRequests: -1, MaxSteps: 2000}, w,
		sim.Bounds{Deviations: 0, NoEarlyTicks: true})
	if err != nil {
		t.Fatal(err)
	}
	if ce := frozen.Counterexample; ce == nil || !slices.Contains(ce.Report.Classes(), check.NoProgress) {
		t.Fatalf("with time frozen while it spins, want no-progress: %s", frozen.Coverage())
	}
}
