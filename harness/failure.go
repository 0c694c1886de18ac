package harness

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/zksim/zksim/linearize"
	"github.com/zksim/zksim/report"
	"github.com/zksim/zksim/sim"
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
		ce, ok := shrinkFinding(f, run, s.programs)
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
func (s failureSubject) writeCounterexample(w io.Writer, class string, ce Counterexample) {
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
	dir := s.dir
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "zksim")
	}
	replay := func(p string) string { return fmt.Sprintf(s.replay, p) }
	tracePath, htmlPath, err := saveFailure(dir, s.name+"-"+class, ce.traceFile(s.programs), rep, ce.Seed, replay)
	if err != nil {
		fmt.Fprintf(w, "could not save the failure: %v\n", err)
		return
	}
	writeSaved(w, tracePath, htmlPath, replay(tracePath))
}

// writeExcerpt writes the last excerptLines lines of a trace as
// WriteTrace shows it (blamed steps marked, ticks collapsed), saying how
// many came before.
func writeExcerpt(w io.Writer, trace []string, vs []linearize.Violation) {
	var b strings.Builder
	WriteTrace(&b, trace, vs, TraceView{})
	lines := strings.SplitAfter(b.String(), "\n")
	lines = lines[:len(lines)-1] // after the last newline
	fmt.Fprintf(w, "  (trace: one event a line; ! marks a step the verdict blames; TraceLegend explains the rest)\n")
	if n := len(lines) - excerptLines; n > 0 {
		fmt.Fprintf(w, "  ... %d earlier lines in the trace file\n", n)
		lines = lines[n:]
	}
	io.WriteString(w, strings.Join(lines, ""))
}

// traceFile is the saved form of a counterexample.
func (ce Counterexample) traceFile(programs bool) TraceFile {
	f := TraceFile{Config: ce.Config.WithDefaults(), Decisions: ce.Decisions, Trace: ce.Report.Result.Trace}
	if programs {
		f.Programs, f.Workload = true, Workload{Clients: ce.Workload.Clients}
	} else {
		f.Recipe, f.Workload = ce.Workload.Recipe.Name, ce.Workload.withDefaults()
	}
	return f
}

// SaveFailure writes a failing run's trace file (which parses back and
// replays) and its HTML report (verdict, timeline and trace in one
// self-contained page) into dir, named after name (.trace and .html), and
// returns their paths (htmlPath "" if the run showed no violation).
func SaveFailure(dir, name string, rep *Report, w Workload, cfg sim.Config, decisions []int) (tracePath, htmlPath string, err error) {
	ce := Counterexample{Workload: w, Config: cfg, Decisions: decisions, Report: rep}
	return saveFailure(dir, name, ce.traceFile(false), rep, 0, func(p string) string { return "zksim replay " + p })
}

// saveFailure writes the trace file and the HTML report of a failure;
// replay words how to replay the trace file at a path, for the report.
func saveFailure(dir, name string, file TraceFile, rep *Report, seed uint64, replay func(string) string) (tracePath, htmlPath string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	base := strings.NewReplacer("/", "_", " ", "_").Replace(name)
	tracePath = filepath.Join(dir, base+".trace")
	if err := os.WriteFile(tracePath, []byte(file.String()), 0o644); err != nil {
		return "", "", err
	}
	if rep.OK() {
		return tracePath, "", nil
	}
	htmlPath = filepath.Join(dir, base+".html")
	if err := report.WriteFile(htmlPath, htmlReport(file, rep, seed, replay(tracePath))); err != nil {
		return tracePath, "", err
	}
	return tracePath, htmlPath, nil
}

// WriteFailure saves a counterexample's artifacts into dir (SaveFailure,
// with name) and writes to w its violations, its trace, then the files it
// saved and the command that replays the trace (replay, the command
// before "replay FILE": "go run ./cmd/zksim" for zksim itself), or why it
// could not save them. It returns the trace file's path, "" if unsaved.
// The trace is shown as WriteTrace shows it, one event a line, with the
// legend.
func WriteFailure(w io.Writer, dir, name, replay string, ce Counterexample) string {
	return WriteFailureView(w, dir, name, replay, ce, TraceView{Legend: true})
}

// WriteFailureView is WriteFailure showing the trace in view.
func WriteFailureView(w io.Writer, dir, name, replay string, ce Counterexample, view TraceView) string {
	rep := ce.Report
	command := func(p string) string { return replay + " replay " + filepath.ToSlash(p) }
	tracePath, htmlPath, err := saveFailure(dir, name, ce.traceFile(false), rep, ce.Seed, command)
	if view.Dir == "" && view.Columns {
		view.Dir = ce.Workload.withDefaults().Dir
	}
	writeRun(w, rep.Violations, rep.Result.Trace, view)
	if err != nil {
		fmt.Fprintf(w, "could not save the failure: %v\n", err)
		return ""
	}
	writeSaved(w, tracePath, htmlPath, command(tracePath))
	return tracePath
}

// writeSaved names a saved failure's files and how to replay it.
func writeSaved(w io.Writer, tracePath, htmlPath, replay string) {
	fmt.Fprintf(w, "trace:    %s\n", tracePath)
	if htmlPath != "" {
		fmt.Fprintf(w, "report:   %s\n", htmlPath)
	}
	fmt.Fprintf(w, "replay:   %s\n", replay)
}

// writeRun writes a failing run's violations, one a line, and its trace.
func writeRun(w io.Writer, vs []linearize.Violation, trace []string, view TraceView) {
	for _, v := range vs {
		fmt.Fprintf(w, "  %v\n", v)
	}
	fmt.Fprintln(w)
	WriteTrace(w, trace, vs, view)
	fmt.Fprintln(w)
}
