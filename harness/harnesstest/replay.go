package harnesstest

import (
	"fmt"
	"os"
	"testing"

	"github.com/zksim/zksim/barrier"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"
)

// ReplayFile replays a trace file that CheckRecipe (or zksim run) saved,
// with recipe, the recipe.Lock it was saved for, and returns the report.
// It fails t if the file cannot be read, names another recipe, or replays
// to another trace (the recipe changed since, or does not run
// deterministically), and it fails t with the violations the replay shows:
// a replayed failure fails the test again, ready for a debugger or more
// logging.
func ReplayFile(t testing.TB, path string, recipe recipe.Lock) *harness.Report {
	t.Helper()
	f := readTraceFile(t, path)
	if f.Programs || f.Recipe != recipe.Name {
		t.Fatalf("%s: a trace of %s, not of recipe %q", path, subject(f), recipe.Name)
	}
	w := f.Workload
	w.Recipe = recipe
	return replayAs(t, path, f, w)
}

// ReplayBarrierFile replays a trace file that CheckBarrier (or zksim run)
// saved of a barrier recipe, with recipe, and returns the report. It
// fails t as ReplayFile does; recipe must carry the name in the file.
func ReplayBarrierFile(t testing.TB, path string, recipe barrier.Recipe) *harness.Report {
	t.Helper()
	f := readTraceFile(t, path)
	if f.Barrier == nil || f.Recipe != recipe.Name {
		t.Fatalf("%s: a trace of %s, not of barrier recipe %q", path, subject(f), recipe.Name)
	}
	w := *f.Barrier
	w.Recipe = recipe
	return replayAs(t, path, f, w)
}

// replayAs replays the trace file f at path as w and judges the replay.
func replayAs(t testing.TB, path string, f harness.TraceFile, w harness.Subject) *harness.Report {
	t.Helper()
	rep, err := w.Check(f.Config, &sim.Decisions{List: f.Decisions})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	judgeReplay(t, path, f, rep)
	return rep
}

// ReplayCheck replays a trace file that Check saved, with the same
// programs, invariant and cfg (whose Setup and Observe the file cannot
// hold; its faults and bounds come from the file), and returns the report
// of the run. It fails t as ReplayFile does.
func ReplayCheck(t testing.TB, path string, cfg sim.Config, invariant func(s *sim.Sim) error, programs ...sim.Program) *harness.Report {
	t.Helper()
	f := readTraceFile(t, path)
	if !f.Programs || f.Workload.Clients != len(programs) {
		t.Fatalf("%s: a trace of %s, not of %d programs", path, subject(f), len(programs))
	}
	run := f.Config
	run.Setup, run.Observe = cfg.Setup, cfg.Observe
	rep, err := programsRunner(invariant, programs)(run, &sim.Decisions{List: f.Decisions}, harness.Workload{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	judgeReplay(t, path, f, rep)
	return rep
}

func readTraceFile(t testing.TB, path string) harness.TraceFile {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := harness.ParseTraceFile(string(text))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

// judgeReplay fails t if a replay diverged from the saved trace, or
// showed violations.
func judgeReplay(t testing.TB, path string, f harness.TraceFile, rep *harness.Report) {
	t.Helper()
	got := rep.Result.Trace
	i := 0
	for i < len(got) && i < len(f.Trace) && got[i] == f.Trace[i] {
		i++
	}
	if i < len(got) || i < len(f.Trace) {
		t.Fatalf("%s: the replay diverged from the saved trace at line %d:\n  saved:  %s\n  replay: %s\n"+
			"(the code under test changed since the trace was saved, or does not run deterministically)",
			path, i+1, lineOr(f.Trace, i), lineOr(got, i))
	}
	if len(rep.Violations) > 0 {
		var b []byte
		for _, v := range rep.Violations {
			b = fmt.Appendf(b, "\n  %v", v)
		}
		t.Errorf("%s: replayed %d steps, %d violation(s):%s", path, rep.Result.Steps, len(rep.Violations), b)
	}
}

func lineOr(trace []string, i int) string {
	if i < len(trace) {
		return trace[i]
	}
	return "(end of trace)"
}

// subject words what a trace file ran.
func subject(f harness.TraceFile) string {
	if f.Programs {
		return fmt.Sprintf("%d programs", f.Workload.Clients)
	}
	return fmt.Sprintf("recipe %q", f.Recipe)
}
