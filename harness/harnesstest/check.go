package harnesstest

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/lock"
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
	Workload harness.Workload
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
	if err := harness.ValidateLock(opts.Config, recipe, opts.Workload); err != nil {
		t.Fatal(err) // before rapid starts: a bad option is not a check that failed
	}
	found, schedules, err := explore(t, recipeDraw(recipe, opts), harness.RunWorkload, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		subject := failureSubject{what: recipe.Name, name: t.Name() + "-" + recipe.Name, dir: opts.ArtifactDir,
			replay: "harnesstest.ReplayFile(t, %q, recipe)"}
		t.Fatal(subject.report(found, schedules, harness.RunWorkload))
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
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	run := programsRunner(invariant, programs)
	found, schedules, err := explore(t, programsDraw(cfg, len(programs)), run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		subject := failureSubject{what: "programs", name: t.Name(), programs: true,
			replay: "harnesstest.ReplayCheck(t, %q, cfg, invariant, programs...)"}
		t.Fatal(subject.report(found, schedules, run))
	}
}

func recipeDraw(recipe lock.Recipe, opts CheckOptions) func(*rapid.T) drawn {
	w := opts.Workload
	w.Recipe = recipe
	return func(rt *rapid.T) drawn { return drawRecipeCheck(rt, w, opts.Config) }
}

func programsDraw(cfg sim.Config, programs int) func(*rapid.T) drawn {
	return func(rt *rapid.T) drawn { return drawConfig(rt, harness.Workload{Clients: programs}, cfg) }
}

// programsRunner runs programs as a runner, judged by their verdicts.
func programsRunner(invariant func(*sim.Sim) error, programs []sim.Program) runner {
	return func(cfg sim.Config, ch sim.Chooser, _ harness.Workload) (*harness.Report, error) {
		if invariant != nil {
			cfg.Observe = func(s *sim.Sim, _ int, _ sim.Event) error { return invariant(s) }
		}
		res, err := sim.Run(cfg, ch, programs...)
		if err != nil {
			return nil, err
		}
		return &harness.Report{Result: res, Violations: res.Verdicts()}, nil
	}
}
