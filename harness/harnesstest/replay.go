package harnesstest

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/sim"
)

// Replay replays a trace file that Check, CheckExhaustive (or zksim run)
// saved, as the Subject w makes of the file's workload line
// (harness.TraceFile.Subject: w is the recipe or the programs it was
// saved for), and returns the report. It fails t if the file cannot be read, is of another recipe or
// workload, or replays to another trace (the code under test changed
// since, or does not run deterministically), and it fails t with the
// violations the replay shows: a replayed failure fails the test again,
// ready for a debugger or more logging. The file holds the
// configuration but its Setup and Observe, which do not run.
func Replay(t testing.TB, path string, w harness.Subject) *harness.Report {
	t.Helper()
	f := readTraceFile(t, path)
	p, err := f.Subject(w)
	if err != nil {
		t.Fatalf("%s: a trace of %s, not of %s", path, what(f.Recipe, f.Workload), what(w.Name(), w.Spec()))
	}
	rep, err := harness.Run(f.Config, sim.Replay(f.Decisions), p)
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

// what words what a trace file's recipe and workload lines ran: `recipe
// "lock"`, or "3 programs".
func what(recipe, workload string) string {
	if n, ok := strings.CutPrefix(workload, "clients="); ok && recipe == "programs" {
		return n + " programs"
	}
	return fmt.Sprintf("recipe %q", recipe)
}
