package harness_test

import (
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/counterexample"
	"github.com/zksim/zksim/internal/longtest"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

var update = flag.Bool("update", false, "rewrite testdata golden traces")

// zooWorkload is the workload the zoo is hunted with: half the
// acquisitions giving up after a deadline, so that both give-up bugs and
// the leaks they cause show. A lost create adopted from a dying session
// (bug scenario 2) harms only a hold that outlasts that session, which
// expires at most 4 ticks after the client gave it up: those exhibits'
// holders hold for 5 ticks.
func zooWorkload(ex zoo.Exhibit) harness.Subject { return harness.Lock(ex.Recipe, zooSettings(ex)) }

// zooSettings are the lock workload settings of zooWorkload.
func zooSettings(ex zoo.Exhibit) harness.Workload {
	w := harness.Workload{ReadPercent: 50, TimeoutTicks: 12, TimeoutPercent: 50}
	if adoptsAcrossSessions(ex) {
		w.HoldTicks = 5
	}
	return w
}

// adoptsAcrossSessions: ex maps to bug scenario 2, a lost create adopted
// from the client's earlier, dying session, which only a client that
// gives up its session on its own (the abandon fault) leaves behind.
func adoptsAcrossSessions(ex zoo.Exhibit) bool { return slices.Contains(ex.Scenarios, 2) }

// zooConfig is the configuration the zoo is hunted with: faults of every
// kind but abandon.
func zooConfig(seed uint64) sim.Config {
	return sim.Config{Faults: allFaults, Server: fakezkFollowers(seed)}
}

// zooConfigFor is zooConfig with one abandoned session more for the
// exhibits that need one. The others keep zooConfig, with which the
// golden and regression traces were recorded and their counterexamples'
// lengths measured.
func zooConfigFor(ex zoo.Exhibit) func(seed uint64) sim.Config {
	if !adoptsAcrossSessions(ex) {
		return zooConfig
	}
	return func(seed uint64) sim.Config {
		cfg := zooConfig(seed)
		cfg.Faults.Abandon = 1
		return cfg
	}
}

// hunt runs seeds from start until a run shows ex's violation class and
// returns the number of schedules it took and the decisions of that run.
func hunt(t *testing.T, ex zoo.Exhibit, start uint64, limit int) (int, sim.Config, []int) {
	return huntWith(t, ex, zooConfigFor(ex), start, limit)
}

// huntWith is hunt under the configurations cfg gives each seed.
func huntWith(t *testing.T, ex zoo.Exhibit, cfg func(seed uint64) sim.Config, start uint64, limit int) (int, sim.Config, []int) {
	for i := range limit {
		seed := start + uint64(i)
		var recorded []int
		rec := sim.Record(sim.NewSeeded(seed), &recorded)
		rep, err := harness.Run(cfg(seed), rec, zooWorkload(ex))
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(rep.Classes(), ex.Violation) {
			return i + 1, cfg(seed), recorded
		}
	}
	return limit, sim.Config{}, nil
}

// Every zoo recipe is found with its expected violation class within 200
// schedules of the standard workload; its minimal counterexample (the
// smallest workload that shows it, its schedule shrunk) is short. A long
// test (two minutes under -race, most of it in the four exhibits
// TestZoo_FoundAndShrunkButTheSlowest leaves out).
func TestZoo_FoundAndShrunk(t *testing.T) {
	longtest.Skip(t)
	testFoundAndShrunk(t, zoo.Locks())
}

// TestZoo_FoundAndShrunk in the normal suite: every exhibit but the four
// whose minimization takes longest under -race (existsabsence,
// deletefirstchild, electunfenced, semtimeoutleak: their classes are
// shown by the others, and TestExplore_FindsABugOfEachClass finds
// electunfenced's fencing).
func TestZoo_FoundAndShrunkButTheSlowest(t *testing.T) {
	slowest := []string{zoo.NameExistsAbsence, zoo.NameDeleteFirstChild, zoo.NameElectUnfenced, zoo.NameSemTimeoutLeak}
	var exs []zoo.Exhibit
	for _, ex := range zoo.Locks() {
		if !slices.Contains(slowest, ex.Name) {
			exs = append(exs, ex)
		}
	}
	if len(exs) != len(zoo.Locks())-len(slowest) {
		t.Fatalf("%d exhibits left of %d: a slowest one was renamed", len(exs), len(zoo.Locks()))
	}
	testFoundAndShrunk(t, exs)
}

func testFoundAndShrunk(t *testing.T, exhibits []zoo.Exhibit) {
	for _, ex := range exhibits {
		t.Run(ex.Name, func(t *testing.T) {
			n, _, decisions := hunt(t, ex, 1, 200)
			if decisions == nil {
				t.Fatalf("%s: no %s in 200 schedules", ex.Name, ex.Violation)
			}
			ce, ok := counterexample.Minimize(zooWorkload(ex), zooConfigFor(ex), ex.Violation, 60, 0)
			if !ok {
				t.Fatalf("no minimal counterexample for %s", ex.Name)
			}
			lines := len(ce.Report.Result.Trace)
			t.Logf("%-22s %-17s found after %3d schedules; minimal: %d clients x %d, %3d decisions, %3d trace lines",
				ex.Name, ex.Violation, n, ce.Subject.Shape().Clients, ce.Subject.Shape().Each, len(ce.Decisions), lines)
			if lines > 150 {
				t.Errorf("minimal trace has %d lines", lines)
			}
		})
	}
}

// A planted bug's minimal counterexample, exactly: the directory-watching
// lock wakes every waiter on a release. The shrunk schedule is fixed by
// the search and the shrinker, both deterministic, so its trace is a
// golden file.
func TestZoo_DirWatchMinimalTrace(t *testing.T) {
	ex, _ := zoo.Lookup(zoo.NameDirWatch)
	_, cfg, decisions := hunt(t, ex, 1, 50)
	s := zooSettings(ex)
	s.Clients, s.Acquisitions = 3, 1
	w := harness.Lock(ex.Recipe, s)
	fails := func(d []int) bool {
		rep, _ := harness.Run(cfg, sim.Replay(d), w)
		return slices.Contains(rep.Classes(), "herd")
	}
	if !fails(decisions) {
		decisions = nil // the 3-client workload needs its own search
		for seed := uint64(1); seed < 100 && decisions == nil; seed++ {
			var recorded []int
			rec := sim.Record(sim.NewSeeded(seed), &recorded)
			rep, _ := harness.Run(cfg, rec, w)
			if slices.Contains(rep.Classes(), "herd") {
				decisions = recorded
			}
		}
	}
	shrunk := sim.Shrink(decisions, fails, 3000)
	rep, _ := harness.Run(cfg, sim.Replay(shrunk), w)
	got := sim.TraceString(rep.Result.Trace)
	const golden = "testdata/dirwatch-minimal.trace"
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(golden, []byte(got), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("minimal trace changed:\n%s", got)
	}
}

// A lost create adopted from a dying session needs a client that gives
// its session up while the server keeps it: AdoptDying is found with the
// abandon fault (TestZoo_FoundAndShrunk) and never without it, since a
// session the server has expired leaves no node to adopt.
func TestZoo_AdoptDyingNeedsAbandon(t *testing.T) {
	ex, _ := zoo.Lookup(zoo.NameAdoptDying)
	if n, _, decisions := huntWith(t, ex, zooConfig, 1, 200); decisions != nil {
		t.Fatalf("%s shown after %d schedules without an abandoned session", ex.Violation, n)
	}
}

// A counterexample with an abandoned session saves and replays: the trace
// file's faults line carries abandon=N, and the replay matches byte for
// byte.
func TestZoo_AbandonTraceReplays(t *testing.T) {
	ex, _ := zoo.Lookup(zoo.NameAdoptDying)
	ce, ok := counterexample.Minimize(zooWorkload(ex), zooConfigFor(ex), ex.Violation, 60, 0)
	if !ok {
		t.Fatal("no counterexample")
	}
	path, _, err := harness.SaveFailure(t.TempDir(), "adoptdying", ce, nil)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(path)
	if !strings.Contains(string(text), " abandon=1\n") || !strings.Contains(string(text), "left to expire, new session") {
		t.Fatalf("no abandoned session in the saved file:\n%s", text)
	}
	f, err := harness.ParseTraceFile(string(text))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := harness.Replay(f, harness.Lock(ex.Recipe, harness.Workload{}))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rep.Classes(), ex.Violation) {
		t.Fatalf("the replay shows %v", rep.Violations)
	}
}

// The zoo's correct parts hold under abandoned sessions: TimeoutLeak
// without deadlines is a correct queue lock, and shows no violation of
// exclusion under the AdoptDying hunt. (A listing sent before the client
// gave its session up and answered after must not grant the lock to the
// new session: the node is the old one's.)
func TestZoo_CorrectQueueUnderAbandon(t *testing.T) {
	adopt, _ := zoo.Lookup(zoo.NameAdoptDying)
	leak, _ := zoo.Lookup(zoo.NameTimeoutLeak)
	s := zooSettings(adopt)
	s.TimeoutTicks = 0
	w := harness.Lock(leak.Recipe, s)
	for seed := uint64(1); seed <= 600; seed++ {
		cfg := zooConfigFor(adopt)(seed)
		cfg.NoTrace = true
		rep, err := harness.Run(cfg, sim.NewSeeded(seed), w)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(rep.Classes(), check.MutualExclusion) {
			t.Fatalf("seed %d: %v", seed, rep.Violations)
		}
	}
}
