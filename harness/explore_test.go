package harness_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/longtest"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zoo"
)

// exploreFaults: one fault of each legal kind.
var exploreFaults = sim.Faults{LoseRequest: 1, LoseReply: 1, Disconnect: 1, Crash: 1, Pause: 1, Reap: 1, Abandon: 1}

// The systematic search finds every zoo bug with its class, at the
// smallest workload that shows it and with the fewest deviations from the
// default schedule. The state caps only keep a regression from running
// long: the search is deterministic, so each bug is found at the same
// count on every machine. A long test (minutes under -race: existsabsence
// and deletefirstchild take 100,000 states and more);
// TestExplore_FindsABugOfEachClass is its sibling in the normal suite, and
// BenchmarkExploreZoo measures the same searches.
func TestExplore_FindsEveryZooBug(t *testing.T) {
	longtest.Skip(t)
	testFindsZooBugs(t, zoo.Locks(), false)
}

// With symmetry too, at no more deviations. A long test, as
// TestExplore_FindsEveryZooBug; its sibling is
// TestExplore_SymmetryFindsABugOfEachClass, and
// BenchmarkExploreZooSymmetry measures the same searches.
func TestExplore_SymmetryFindsEveryZooBug(t *testing.T) {
	longtest.Skip(t)
	testFindsZooBugs(t, zoo.Locks(), true)
}

// The normal suite's share of TestExplore_FindsEveryZooBug: an exhibit of
// each violation class, so that each checker must judge the search's
// runs, with faults of every kind among them (an abandoned session for
// adoptdying) and a bug two deviations deep (electunfenced: deepening
// through three passes), each a few thousand states at most.
func TestExplore_FindsABugOfEachClass(t *testing.T) {
	testFindsZooBugs(t, zooExhibits(t, zoo.NameDirWatch, zoo.NameNoGUIDRetry, zoo.NameAdoptDying, zoo.NameGoZKLock,
		zoo.NameElectCached, zoo.NameElectUnfenced, zoo.NameSemMixedMax), false)
}

// The normal suite's share of TestExplore_SymmetryFindsEveryZooBug: an
// exhibit of each class but fencing (found at two deviations, 30,000
// states with symmetry), among them three-client workloads where mirror
// images merge (deletefirstchild: one deviation with symmetry, two
// without) and electcached, which symmetry's own default schedule shows
// at no deviation.
func TestExplore_SymmetryFindsABugOfEachClass(t *testing.T) {
	testFindsZooBugs(t, zooExhibits(t, zoo.NameDirWatch, zoo.NameNoGUIDRetry, zoo.NameDeleteFirstChild, zoo.NameGoZKLock,
		zoo.NameElectCached, zoo.NameSemMixedMax), true)
}

// zooExhibits looks the named exhibits up.
func zooExhibits(t *testing.T, names ...string) []zoo.Exhibit {
	t.Helper()
	var exs []zoo.Exhibit
	for _, name := range names {
		ex, ok := zoo.Lookup(name)
		if !ok {
			t.Fatalf("no exhibit %s", name)
		}
		exs = append(exs, ex)
	}
	return exs
}

// zooSearch is the workload and configuration an exhibit's bug is
// searched with: its smallest workload, one fault of each kind; for the
// bugs a timer shows, a deadline that fires while another client is
// between getChildren and exists is enough, and the timer workload
// without faults is searched (with every fault the search takes
// millions of states to get there: 2.8M for existsabsence, found at
// 100k when time passed only with nothing else to do, since early ticks
// widen the passes before it; BenchmarkExploreTimerBugsUnderFaults).
func zooSearch(ex zoo.Exhibit) (harness.Subject, sim.Config) {
	clients := map[string]int{zoo.NameExistsAbsence: 3, "zoo/timeoutleak": 3, "zoo/deletefirstchild": 3,
		zoo.NameSemMixedMax: 3, zoo.NameSemDirWatch: 4, zoo.NameSemTimeoutLeak: 3, zoo.NameSemBusyCount: 3}
	if slices.Contains(timerNames, ex.Name) || ex.Name == zoo.NameExistsAbsence {
		return timerWorkload(ex), sim.Config{}
	}
	s := zooSettings(ex)
	s.Clients, s.Acquisitions = max(2, clients[ex.Name]), 1
	w := harness.Lock(ex.Recipe, s)
	return w, sim.Config{Faults: exploreFaults}
}

// testFindsZooBugs searches each exhibit's smallest workload for its
// class, deepening up to 2 deviations.
func testFindsZooBugs(t *testing.T, exhibits []zoo.Exhibit, symmetry bool) {
	for _, ex := range exhibits {
		t.Run(ex.Name, func(t *testing.T) {
			if symmetry && ex.Name == zoo.NameExistsAbsence {
				// Found at 2 deviations too, but the default schedule
				// differs and it takes 3.4M states (110 s): see
				// BenchmarkExploreZooSymmetry.
				t.Skip("too long for a test with symmetry")
			}
			w, cfg := zooSearch(ex)
			res := exploreFor(t, ex, cfg, w, sim.Bounds{Deviations: 2, MaxStates: 200000, Symmetry: symmetry})
			ce := res.Counterexample
			t.Logf("%s at %d deviations after %d schedules, %d states in the last pass; %d trace lines",
				ex.Violation, res.Deviation, res.Schedules, res.States, len(ce.Report.Result.Trace))
		})
	}
}

// exploreFor searches w for ex's class within b and fails t unless the
// counterexample shows it.
func exploreFor(t testing.TB, ex zoo.Exhibit, cfg sim.Config, w harness.Subject, b sim.Bounds) *harness.Exploration {
	t.Helper()
	b.Class = ex.Violation
	res, err := harness.Explore(context.Background(), cfg, w, b)
	if err != nil {
		t.Fatal(err)
	}
	ce := res.Counterexample
	if ce == nil {
		t.Fatalf("no %s within %s", ex.Violation, res.Coverage())
	}
	if got := ce.Report.Classes(); !slices.Contains(got, ex.Violation) {
		t.Fatalf("counterexample shows %v, want %s", got, ex.Violation)
	}
	return res
}

// A search is deterministic: the same bounds give the same counts and the
// same counterexample on every run, and with any number of workers the
// same verdict. (Three clients of semmixedmax: a few thousand states,
// with and without symmetry; assumeonwake's 26,000 took two minutes
// under -race.)
func TestExplore_Deterministic(t *testing.T) {
	ex, _ := zoo.Lookup(zoo.NameSemMixedMax)
	s := zooSettings(ex)
	s.Clients, s.Acquisitions = 3, 1
	w := harness.Lock(ex.Recipe, s)
	symmetric := false
	run := func(parallel int) *harness.Exploration {
		res, err := harness.Explore(context.Background(), sim.Config{Faults: exploreFaults}, w,
			sim.Bounds{Deviations: 2, Parallel: parallel, Symmetry: symmetric})
		if err != nil {
			t.Fatal(err)
		}
		if res.Counterexample == nil {
			t.Fatalf("nothing found: %s", res.Coverage())
		}
		return res
	}
	a, b := run(1), run(1)
	a.Elapsed, b.Elapsed = 0, 0
	if d := cmp.Diff(a.Coverage(), b.Coverage()); d != "" {
		t.Errorf("two runs covered differently:\n%s", d)
	}
	if d := cmp.Diff(a.Counterexample.Decisions, b.Counterexample.Decisions); d != "" {
		t.Errorf("two runs found different counterexamples:\n%s", d)
	}
	p := run(2)
	if p.Deviation != a.Deviation || worstClass(p) != worstClass(a) {
		t.Errorf("2 workers: %s at %d deviations, 1 worker: %s at %d", worstClass(p), p.Deviation, worstClass(a), a.Deviation)
	}
	symmetric = true
	a, b = run(1), run(1)
	a.Elapsed, b.Elapsed = 0, 0
	if d := cmp.Diff(a.Coverage(), b.Coverage()); d != "" {
		t.Errorf("two runs with symmetry covered differently:\n%s", d)
	}
	if d := cmp.Diff(a.Counterexample.Decisions, b.Counterexample.Decisions); d != "" {
		t.Errorf("two runs with symmetry found different counterexamples:\n%s", d)
	}
	if p := run(2); p.Deviation != a.Deviation || worstClass(p) != worstClass(a) {
		t.Errorf("with symmetry, 2 workers: %s at %d deviations, 1 worker: %s at %d", worstClass(p), p.Deviation, worstClass(a), a.Deviation)
	}
}

func worstClass(r *harness.Exploration) check.Class { return r.Counterexample.Report.Classes()[0] }

// Shards split the schedules: without reductions (so that no shard's
// fingerprints hide another's schedules) the shards together run what the
// whole search runs, and each runs fewer.
func TestExplore_ShardsSplitTheSchedules(t *testing.T) {
	w := harness.Lock(zoo.Mutex(), harness.Workload{Clients: 2, Acquisitions: 1})
	cfg := sim.Config{} // no faults: 633 schedules; a lost reply made them 5,102, 30 s under -race
	bounds := sim.Bounds{Deviations: 3, NoDeepening: true, NoReduction: true}
	whole, err := harness.Explore(context.Background(), cfg, w, bounds)
	if err != nil {
		t.Fatal(err)
	}
	if !whole.Exhausted {
		t.Fatalf("whole search not exhausted: %s", whole.Coverage())
	}
	sum := 0
	for i := range 3 {
		b := bounds
		b.Shard, b.Shards = i, 3
		part, err := harness.Explore(context.Background(), cfg, w, b)
		if err != nil {
			t.Fatal(err)
		}
		if part.Schedules >= whole.Schedules {
			t.Errorf("shard %d ran %d schedules of %d", i, part.Schedules, whole.Schedules)
		}
		sum += part.Schedules
	}
	// Schedules that end above the split are run by every shard.
	if sum < whole.Schedules || sum > whole.Schedules+2*3 {
		t.Errorf("shards ran %d schedules in all, the whole search %d", sum, whole.Schedules)
	}
}

// Fingerprints and sleep sets cut the work of plain enumeration and find
// the same bug.
func TestExplore_ReductionsAgreeWithPlainEnumeration(t *testing.T) {
	ex, _ := zoo.Lookup("zoo/assumeonwake")
	s := zooSettings(ex)
	s.Clients, s.Acquisitions = 2, 1
	w := harness.Lock(ex.Recipe, s)
	cfg := sim.Config{Faults: exploreFaults}
	var found [2]bool
	var schedules [2]int
	for i, plain := range []bool{false, true} {
		res, err := harness.Explore(context.Background(), cfg, w, sim.Bounds{Deviations: 2, NoReduction: plain, Class: ex.Violation})
		if err != nil {
			t.Fatal(err)
		}
		found[i], schedules[i] = res.Counterexample != nil, res.Schedules
	}
	if found != [2]bool{true, true} {
		t.Fatalf("found with reductions, without: %v", found)
	}
	if schedules[0] >= schedules[1] {
		t.Errorf("schedules to the bug: %d with reductions, %d without", schedules[0], schedules[1])
	}
	t.Logf("schedules to the bug: %d with reductions, %d without", schedules[0], schedules[1])
}

// With no deviation bound sleep sets prune too (Bounds.Deviations): they
// skip options, and the bug plain enumeration finds is still found.
// splitdash shows mutual exclusion without a fault or a timer, so that
// with early ticks off (with them, plain enumeration to the bug's depth
// is 200,000 schedules) the whole tree to its depth is a few thousand.
func TestExplore_SleepSetsKeepTheBug(t *testing.T) {
	ex, _ := zoo.Lookup(zoo.NameSplitDash)
	s := zooSettings(ex)
	s.Clients, s.Acquisitions = 2, 1
	w := harness.Lock(ex.Recipe, s)
	for _, plain := range []bool{false, true} {
		res, err := harness.Explore(context.Background(), sim.Config{}, w,
			sim.Bounds{Deviations: -1, Depth: 40, NoEarlyTicks: true, NoReduction: plain, Class: ex.Violation, MaxStates: 100000})
		if err != nil {
			t.Fatal(err)
		}
		if res.Counterexample == nil {
			t.Fatalf("plain %v: no %s within %s", plain, ex.Violation, res.Coverage())
		}
		if !plain && res.Slept == 0 {
			t.Errorf("sleep sets skipped no option: %s", res.Coverage())
		}
		t.Logf("plain %v: found after %d schedules, %d passes, %d options asleep", plain, res.Schedules, res.Passes, res.Slept)
	}
}

// A counterexample of the systematic search saves as a trace file that
// parses back and replays byte for byte.
func TestExplore_CounterexampleReplays(t *testing.T) {
	ex, _ := zoo.Lookup("zoo/noguidretry")
	s := zooSettings(ex)
	s.Clients, s.Acquisitions = 2, 1
	w := harness.Lock(ex.Recipe, s)
	res, err := harness.Explore(context.Background(), sim.Config{Faults: exploreFaults}, w, sim.Bounds{Deviations: 1})
	if err != nil {
		t.Fatal(err)
	}
	ce := res.Counterexample
	if ce == nil {
		t.Fatalf("nothing found: %s", res.Coverage())
	}
	dir := t.TempDir()
	path, _, err := harness.SaveFailure(dir, "explored", *ce, nil)
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Clean(path))
	if err != nil {
		t.Fatal(err)
	}
	f, err := harness.ParseTraceFile(string(text))
	if err != nil {
		t.Fatal(err)
	}
	if !f.Config.Flat {
		t.Fatal("the trace file lost the flat choice mode")
	}
	rep, err := harness.Replay(f, ce.Subject)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(ce.Report.Classes(), rep.Classes()); d != "" {
		t.Errorf("replay judged differently:\n%s", d)
	}
}

// Bad bounds are refused, naming what is wrong.
func TestExplore_RefusesBadBounds(t *testing.T) {
	w := harness.Lock(zoo.Mutex(), harness.Workload{Clients: 2, Acquisitions: 1})
	for _, b := range []sim.Bounds{{Depth: -1}, {Shard: 3, Shards: 2}, {Deviations: -1}, {Parallel: -2}} {
		if _, err := harness.Explore(context.Background(), sim.Config{}, w, b); err == nil {
			t.Errorf("%+v: no error", b)
		}
	}
}

// A search stopped by a budget says so: not exhausted, no
// counterexample, and only the passes it finished listed as done.
func TestExplore_BudgetStopIsNotExhaustion(t *testing.T) {
	w := harness.Lock(zoo.Mutex(), harness.Workload{Clients: 2, Acquisitions: 1})
	res, err := harness.Explore(context.Background(), sim.Config{Faults: exploreFaults}, w, sim.Bounds{Deviations: 2, MaxStates: 500})
	if err != nil {
		t.Fatal(err)
	}
	if res.Exhausted || res.Complete || res.Counterexample != nil || !strings.Contains(res.Coverage(), "NOT exhausted") {
		t.Fatalf("a stopped search reads: %s", res.Coverage())
	}
	if len(res.Done) >= res.Passes {
		t.Errorf("%d passes ran, %d listed as done: the stopped one counts as done", res.Passes, len(res.Done))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err = harness.Explore(ctx, sim.Config{Faults: exploreFaults}, w, sim.Bounds{Deviations: 2})
	if err != nil || res.Exhausted {
		t.Fatalf("a cancelled search: %v, %s", err, res.Coverage())
	}
}

// Symmetry merges a state with its mirror images: two clients with no
// faults, no deviation bound and no early ticks (one takes 7x the time
// under -race for no more coverage of symmetry; symmetry with early
// ticks is TestExplore_SymmetryFindsABugOfEachClass's), searched to the
// end, take about half the states, and the verdict is the same.
func TestExplore_SymmetryCutsStates(t *testing.T) {
	w := harness.Lock(zoo.Mutex(), harness.Workload{Clients: 2, Acquisitions: 1})
	var states [2]int
	for i, symmetric := range []bool{false, true} {
		res, err := harness.Explore(context.Background(), sim.Config{}, w, sim.Bounds{Deviations: -1, NoDeepening: true, Symmetry: symmetric, NoEarlyTicks: true})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Complete || res.Counterexample != nil || res.Symmetric != symmetric {
			t.Fatalf("symmetry %v: %s", symmetric, res.Coverage())
		}
		if got := strings.Contains(res.Coverage(), "symmetry"); got != symmetric {
			t.Errorf("symmetry %v, the coverage line says: %s", symmetric, res.Coverage())
		}
		states[i] = res.States
	}
	if states[1]*10 > states[0]*6 {
		t.Errorf("states: %d with symmetry, %d without: not about half", states[1], states[0])
	}
	t.Logf("states: %d with symmetry, %d without", states[1], states[0])
}

// Symmetry is the user's declaration that the clients are
// interchangeable; it is off unless asked for, so that a recipe that
// behaves differently for one client (here c1 takes the lock without
// waiting) is searched as it is.
func TestExplore_SymmetryIsOptIn(t *testing.T) {
	mutex := zoo.Mutex()
	rude := recipe.Lock{Name: "rude-c1", Acquire: func(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error) {
		if strings.HasPrefix(id, "c1_") {
			return noLock{}, nil
		}
		return mutex.Acquire(ctx, conn, dir, id)
	}}
	w := harness.Lock(rude, harness.Workload{Clients: 2, Acquisitions: 1})
	res, err := harness.Explore(context.Background(), sim.Config{}, w, sim.Bounds{Deviations: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Symmetric || res.Counterexample == nil || worstClass(res) != check.MutualExclusion {
		t.Fatalf("default bounds on a recipe unfair to c1: %s", res.Coverage())
	}
}

// noLock is a hold of nothing.
type noLock struct{}

func (noLock) Release(context.Context) error { return nil }
