package sim

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

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
			rt.Fatalf("%s", failure(opts.ArtifactDir, t.Name(), recipe.Name, rep, w, opts.Config, used))
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
		var problems []string
		if res.Err != nil {
			problems = append(problems, "invariant: "+res.Err.Error())
		}
		if res.Deadlock {
			problems = append(problems, "deadlock: "+strings.Join(res.Waiting, ", ")+" waiting")
		}
		if res.Bounded {
			problems = append(problems, "no progress within the step bound: "+strings.Join(res.Waiting, ", "))
		}
		for i, e := range res.Errors {
			if e != nil {
				problems = append(problems, fmt.Sprintf("c%d: %v", i+1, e))
			}
		}
		if len(problems) > 0 {
			rt.Fatalf("%s\n%s", strings.Join(problems, "\n"), TraceString(res.Trace))
		}
	})
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

// failure writes the artifacts of a failing run and describes it.
func failure(dir, test, recipe string, rep *Report, w Workload, cfg Config, decisions []int) string {
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "zksim")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d violation(s) in %d steps:\n", recipe, len(rep.Violations), rep.Result.Steps)
	for _, v := range rep.Violations {
		fmt.Fprintf(&b, "  %v\n", v)
	}
	tracePath, htmlPath, err := SaveFailure(dir, test+"-"+recipe, rep, w, cfg, decisions)
	if tracePath != "" {
		fmt.Fprintf(&b, "trace: %s\nreplay: go run ./cmd/zksim replay %s\n", tracePath, tracePath)
	}
	if htmlPath != "" {
		fmt.Fprintf(&b, "timeline: %s\n", htmlPath)
	}
	if err != nil {
		fmt.Fprintf(&b, "saving artifacts: %v\n", err)
	}
	b.WriteString(TraceString(rep.Result.Trace))
	return b.String()
}
