package harness

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/report"
	"github.com/zksim/zksim/sim"
)

// CheckOptions configures CheckRecipe.
type CheckOptions struct {
	// Config bounds the runs: the faults of each kind at most (each check
	// keeps some kinds and leaves the others out), and the rest as given,
	// except that Server.Followers 0 is drawn as 0 or 1 and Server.Seed 0
	// as the check's seed.
	Config sim.Config
	// Workload bounds the workload (Recipe is set by CheckRecipe): each
	// check runs up to Clients (default 5) clients of up to Acquisitions
	// (default 3) acquisitions each; ReadPercent (for read/write recipes)
	// and TimeoutTicks, left at 0, are drawn; the other fields are used as
	// given.
	Workload Workload
	// ArtifactDir receives the trace and HTML report of a failure;
	// default: a zksim directory under os.TempDir(), which outlives the
	// test.
	ArtifactDir string
}

// CheckRecipe checks a lock recipe with the standard workload under
// faulted schedules: mutual (or reader/writer) exclusion, herd, fencing,
// orphans and liveness. rapid draws each check's workload shape, fault
// kinds and seed within opts' bounds (-rapid.checks checks, default 100),
// and each check runs 10 schedules from consecutive seeds. Every violation
// class found is shrunk to a minimal counterexample (smallest workload,
// then fewest decisions), saved as a trace file and an HTML report,
// and reported once with the violations, the end of the trace, and the
// ReplayFile call that reproduces it.
func CheckRecipe(t *testing.T, recipe lock.Recipe, opts CheckOptions) {
	t.Helper()
	found, schedules, err := explore(t, recipeDraw(recipe, opts), RunWorkload, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		subject := failureSubject{what: recipe.Name, name: t.Name() + "-" + recipe.Name, dir: opts.ArtifactDir,
			replay: "harness.ReplayFile(t, %q, recipe)"}
		t.Fatal(subject.report(found, schedules, RunWorkload))
	}
}

// Check runs client programs under faulted schedules, with invariant
// checked after every step (nil: none), and fails on an invariant
// violation, a deadlock, a step bound or a program error. rapid draws
// each check's fault kinds and seed within cfg's bounds, as CheckRecipe
// does; failures are shrunk, saved as trace files and reported with the
// ReplayCheck call that reproduces them. Programs must not keep state
// across runs (reset it in cfg.Setup): they run many times.
func Check(t *testing.T, cfg sim.Config, invariant func(s *sim.Sim) error, programs ...sim.Program) {
	t.Helper()
	run := programsRunner(invariant, programs)
	found, schedules, err := explore(t, programsDraw(cfg, len(programs)), run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		subject := failureSubject{what: "programs", name: t.Name(), programs: true,
			replay: "harness.ReplayCheck(t, %q, cfg, invariant, programs...)"}
		t.Fatal(subject.report(found, schedules, run))
	}
}

func recipeDraw(recipe lock.Recipe, opts CheckOptions) func(*rapid.T) drawn {
	w := opts.Workload
	w.Recipe = recipe
	return func(rt *rapid.T) drawn { return drawRecipeCheck(rt, w, opts.Config) }
}

func programsDraw(cfg sim.Config, programs int) func(*rapid.T) drawn {
	return func(rt *rapid.T) drawn { return drawConfig(rt, Workload{Clients: programs}, cfg) }
}

// programsRunner runs programs as a runner, judged by their verdicts.
func programsRunner(invariant func(*sim.Sim) error, programs []sim.Program) runner {
	return func(cfg sim.Config, ch sim.Chooser, _ Workload) (*Report, error) {
		if invariant != nil {
			cfg.Observe = func(s *sim.Sim, _ int, _ sim.Event) error { return invariant(s) }
		}
		res, err := sim.Run(cfg, ch, programs...)
		if err != nil {
			return nil, err
		}
		return &Report{Result: res, Violations: res.Verdicts()}, nil
	}
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
func writeRun(w io.Writer, vs []check.Violation, trace []string, view TraceView) {
	for _, v := range vs {
		fmt.Fprintf(w, "  %v\n", v)
	}
	fmt.Fprintln(w)
	WriteTrace(w, trace, vs, view)
	fmt.Fprintln(w)
}
