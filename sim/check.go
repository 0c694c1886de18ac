package sim

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/zksim/zksim/linearize"
	"github.com/zksim/zksim/lock"
)

// maxDecisions bounds a drawn schedule; past it every choice is 0.
const maxDecisions = 6000

// drawDecisions draws a whole schedule as one value, which rapid shrinks
// by deleting decisions and making them smaller.
func drawDecisions(t *rapid.T) *Decisions {
	list := rapid.SliceOfN(rapid.IntRange(0, 1<<20), 0, maxDecisions).Draw(t, "decisions")
	return &Decisions{List: list}
}

// CheckOptions configures CheckRecipe.
type CheckOptions struct {
	Config   Config
	Workload Workload // Recipe is set by CheckRecipe
	// ArtifactDir receives the trace and HTML timeline of a failure;
	// default: a zksim directory under os.TempDir(), which outlives the
	// test.
	ArtifactDir string
}

// CheckRecipe checks a lock recipe with the standard workload under faulted
// schedules drawn by rapid: mutual (or reader/writer) exclusion, herd,
// fencing, orphans and liveness. A failure is shrunk to a minimal schedule;
// its trace and porcupine timeline are written to files named in the
// failure message, with the command that replays it.
func CheckRecipe(t *testing.T, recipe lock.Recipe, opts CheckOptions) {
	t.Helper()
	w := opts.Workload
	w.Recipe = recipe
	rapid.Check(t, func(rt *rapid.T) {
		d := drawDecisions(rt)
		fast := opts.Config
		fast.NoTrace = true
		rep, err := RunWorkload(fast, d, w)
		if err != nil {
			rt.Fatal(err)
		}
		if !rep.OK() {
			// Runs are deterministic: the same decisions again, traced.
			used := d.List[:min(d.next, len(d.List))]
			rep, _ = RunWorkload(opts.Config, &Decisions{List: used}, w)
			rt.Fatalf("%s", failure(opts.ArtifactDir, t.Name(), Counterexample{Workload: w, Config: opts.Config, Decisions: used, Report: rep}))
		}
	})
}

// Check runs client programs under schedules drawn by rapid, with
// invariant checked after every step (nil: none), and fails on an invariant
// violation, a deadlock, a step bound or a program error. Programs must
// not keep state across runs: rapid runs them many times.
func Check(t *testing.T, cfg Config, invariant func(s *Sim) error, programs ...Program) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		c := cfg
		if invariant != nil {
			c.Observe = func(s *Sim, _ int, _ Event) error { return invariant(s) }
		}
		res, err := Run(c, drawDecisions(rt), programs...)
		if err != nil {
			rt.Fatal(err)
		}
		if vs := res.verdicts(); len(vs) > 0 {
			var b strings.Builder
			writeRun(&b, vs, res.Trace)
			rt.Fatalf("%s", b.String())
		}
	})
}

// verdicts words what a run itself shows, whatever it ran: a deadlock, no
// progress within the step bound, the programs' errors and Observe's
// verdict. Check fails on them; Report.check adds them to the checkers'.
func (res *Result) verdicts() []linearize.Violation {
	var vs []linearize.Violation
	if res.Deadlock {
		vs = append(vs, linearize.Violation{Class: linearize.Deadlock,
			Detail: fmt.Sprintf("only time could advance at step %d while %s waited", res.Steps, strings.Join(res.Waiting, ", "))})
	}
	if res.Bounded {
		vs = append(vs, linearize.Violation{Class: linearize.NoProgress,
			Detail: fmt.Sprintf("unfinished after %d steps: %s", res.Steps, strings.Join(res.Waiting, ", "))})
	}
	for i, err := range res.Errors {
		if err != nil {
			vs = append(vs, linearize.Violation{Class: linearize.ClientError, Detail: fmt.Sprintf("c%d: %v", i+1, err)})
		}
	}
	if res.Err != nil {
		vs = append(vs, linearize.Violation{Class: linearize.Invariant, Detail: res.Err.Error()})
	}
	return vs
}

// SaveFailure writes a failing run's trace file (which parses back and
// replays) and, when the run broke exclusion, its porcupine timeline into
// dir, named after name, and returns their paths (htmlPath "" if none).
func SaveFailure(dir, name string, rep *Report, w Workload, cfg Config, decisions []int) (tracePath, htmlPath string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	base := strings.NewReplacer("/", "_", " ", "_").Replace(name)
	tracePath = filepath.Join(dir, base+".trace")
	file := TraceFile{Recipe: w.Recipe.Name, Workload: w.withDefaults(), Config: cfg.withDefaults(), Decisions: decisions, Trace: rep.Result.Trace}
	if err := os.WriteFile(tracePath, []byte(file.String()), 0o644); err != nil {
		return "", "", err
	}
	if rep.lockReport.OK() {
		return tracePath, "", nil
	}
	htmlPath = filepath.Join(dir, base+".html")
	if err := rep.WriteHTML(htmlPath); err != nil {
		return tracePath, "", err
	}
	return tracePath, htmlPath, nil
}

// failure describes a failing run of a test and saves its artifacts.
func failure(dir, test string, ce Counterexample) string {
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "zksim")
	}
	rep := ce.Report
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d violation(s) in %d steps:\n", ce.Workload.Recipe.Name, len(rep.Violations), rep.Result.Steps)
	WriteFailure(&b, dir, test+"-"+ce.Workload.Recipe.Name, ce)
	return b.String()
}

// WriteFailure saves a counterexample's artifacts into dir (SaveFailure,
// with name) and writes to w its violations, its trace, then the files it
// saved and the command that replays the trace, or why it could not save
// them.
func WriteFailure(w io.Writer, dir, name string, ce Counterexample) {
	rep := ce.Report
	tracePath, htmlPath, err := SaveFailure(dir, name, rep, ce.Workload, ce.Config, ce.Decisions)
	writeRun(w, rep.Violations, rep.Result.Trace)
	if err != nil {
		fmt.Fprintf(w, "could not save the failure: %v\n", err)
		return
	}
	fmt.Fprintf(w, "trace:    %s\n", tracePath)
	if htmlPath != "" {
		fmt.Fprintf(w, "timeline: %s\n", htmlPath)
	}
	fmt.Fprintf(w, "replay:   go run ./cmd/zksim replay %s\n", filepath.ToSlash(tracePath))
}

// writeRun writes a failing run's violations, one a line, and its trace.
func writeRun(w io.Writer, vs []linearize.Violation, trace []string) {
	for _, v := range vs {
		fmt.Fprintf(w, "  %v\n", v)
	}
	fmt.Fprintf(w, "\n%s\n", TraceString(trace))
}
