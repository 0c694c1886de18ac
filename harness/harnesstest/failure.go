package harnesstest

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
)

// excerptLines bounds the trace a test log shows of a counterexample; the
// trace file has all of it.
const excerptLines = 40

// failureSubject is what CheckRecipe or Check checked, for its failure
// report.
type failureSubject struct {
	what     string // the recipe's name, or "programs"
	name     string // artifact file names start with it
	dir      string // where they go; "" for os.TempDir()/zksim
	programs bool
	replay   string // Go code that replays a trace file, %q for its path
}

// report shrinks every finding to a minimal counterexample, saves each
// as a trace file and an HTML report, and words the failure: one line per
// violation class found, then each counterexample once.
func (s failureSubject) report(found []finding, schedules int, run runner) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s in %s (%s of %d):\n", s.what, plural(len(found), "violation class"),
		plural(schedules, "schedule"), plural((schedules+schedulesPerCheck-1)/schedulesPerCheck, "check"), schedulesPerCheck)
	for _, f := range found {
		fmt.Fprintf(&b, "  %-24s in %d, first in schedule %d: %s\n", f.class, f.schedules, f.index, f.first.describe(s.programs))
	}
	for _, f := range found {
		b.WriteString("\n")
		ce, ok := harness.ShrinkFound(run, f.first.workload, f.first.config, f.first.seed, f.class)
		if !ok {
			what := "recipe " + s.what + " does"
			if s.programs {
				what = "programs do"
			}
			fmt.Fprintf(&b, "%s: schedule %d does not show it when run again: the %s not run deterministically "+
				"(map iteration order, the wall clock, global randomness, state kept across runs?)\n", f.class, f.index, what)
			continue
		}
		s.writeCounterexample(&b, f.class, ce)
	}
	return b.String()
}

// writeCounterexample saves a counterexample and writes what it shows:
// its size, its violations, the end of its trace, the files and the
// replay call.
func (s failureSubject) writeCounterexample(w io.Writer, class check.Class, ce harness.Counterexample) {
	rep := ce.Report
	if s.programs {
		fmt.Fprintf(w, "%s, shrunk to %s:\n", class, plural(len(ce.Decisions), "decision"))
	} else {
		fmt.Fprintf(w, "%s, shrunk to %s x %s, %s:\n",
			class, plural(ce.Workload.Clients, "client"), plural(ce.Workload.Acquisitions, "acquisition"), plural(len(ce.Decisions), "decision"))
	}
	for _, v := range rep.Violations {
		fmt.Fprintf(w, "  %v\n", v)
	}
	writeExcerpt(w, rep.Result.Trace, rep.Violations)
	replay := func(p string) string { return fmt.Sprintf(s.replay, p) }
	harness.SaveCounterexample(w, artifactDir(s.dir), s.name+"-"+string(class), ce, s.programs, replay)
}

// artifactDir is where a failure's files go: dir, or by default a zksim
// directory under os.TempDir(), which outlives the test.
func artifactDir(dir string) string {
	if dir == "" {
		return filepath.Join(os.TempDir(), "zksim")
	}
	return dir
}

// writeExcerpt writes the last excerptLines lines of a trace as
// WriteTrace shows it (blamed steps marked, ticks collapsed), saying how
// many came before.
func writeExcerpt(w io.Writer, trace []string, vs []check.Violation) {
	var b strings.Builder
	harness.WriteTrace(&b, trace, vs, harness.TraceView{})
	lines := strings.SplitAfter(b.String(), "\n")
	lines = lines[:len(lines)-1] // after the last newline
	fmt.Fprintf(w, "  (trace: one event a line; ! marks a step the verdict blames; TraceLegend explains the rest)\n")
	if n := len(lines) - excerptLines; n > 0 {
		fmt.Fprintf(w, "  ... %d earlier lines in the trace file\n", n)
		lines = lines[n:]
	}
	io.WriteString(w, strings.Join(lines, ""))
}
