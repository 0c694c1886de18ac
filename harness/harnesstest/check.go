package harnesstest

import (
	"flag"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"
)

// CheckOptions configures CheckRecipe and CheckExhaustive. Its zero
// value checks with full power: every legal fault kind, as `zksim run`
// does by default.
type CheckOptions struct {
	// Config bounds the runs. Its Faults are the faults of each kind at
	// most (each check keeps some kinds and leaves the others out): left
	// at the zero value, sim.DefaultFaults() (CheckExhaustive:
	// sim.OneOfEach()); some budgets set, exactly those (at 10% of steps
	// if Percent is 0); sim.Faults{None: true}, none. Server.Followers 0
	// is drawn as 0 or 1 and Server.Seed 0 as the check's seed; the rest
	// is used as given.
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
	// ShrinkTime bounds the wall-clock time spent making each violation
	// class's counterexample smaller (a smaller workload, fewer
	// decisions); default the -zksim.shrinktime flag's (30s). It decides
	// how small a counterexample is, never whether one is reported.
	ShrinkTime time.Duration
}

// CheckRecipe checks a lock recipe with the standard workload under
// faulted schedules: mutual (or reader/writer) exclusion, herd, fencing,
// orphans and liveness. rapid draws each check's workload shape, fault
// kinds and seed within opts' bounds (-rapid.checks checks, default 100),
// and each check runs 10 schedules from consecutive seeds. Every
// violation class found is shrunk to a minimal counterexample (smallest
// workload, then fewest decisions), run again to confirm it replays
// (harness.Confirm), saved as a trace file and an HTML report, and
// reported once with the violations, the end of the trace, and the
// ReplayFile call that reproduces it.
func CheckRecipe(t *testing.T, recipe recipe.Lock, opts CheckOptions) {
	t.Helper()
	if err := harness.ValidateLock(opts.Config, recipe, opts.Workload); err != nil {
		t.Fatal(err) // before rapid starts: a bad option is not a check that failed
	}
	s := failureSubject{what: recipe.Name, test: t.Name(), dir: opts.ArtifactDir, shrinkTime: opts.ShrinkTime,
		replay: "harnesstest.ReplayFile(t, %q, recipe)", run: runSubject}
	s.check(t, recipeDraw(recipe, opts))
}

// Check runs client programs under faulted schedules, with invariant
// checked after every step (nil: none), and fails on an invariant
// violation, a deadlock, a step bound or a program error. rapid draws
// each check's fault kinds and seed within cfg's bounds, as CheckRecipe
// does (cfg.Faults as CheckOptions.Config's: zero, every legal kind);
// every class found is shrunk, confirmed, saved as a trace file and
// reported with the ReplayCheck call that reproduces it. Programs must
// not keep state across runs (reset it in cfg.Setup): they run many
// times.
func Check(t *testing.T, cfg sim.Config, invariant func(s *sim.Sim) error, programs ...sim.Program) {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err) // before rapid starts: a bad option is not a check that failed
	}
	s := failureSubject{what: "programs", test: t.Name(), programs: true,
		replay: "harnesstest.ReplayCheck(t, %q, cfg, invariant, programs...)", run: programsRunner(invariant, programs)}
	s.check(t, programsDraw(cfg, len(programs)))
}

// check explores what draw draws and fails t with every class found.
func (s failureSubject) check(t *testing.T, draw func(*rapid.T) drawn) {
	t.Helper()
	found, schedules, err := explore(t, draw, s.run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		t.Fatal(s.report(found, schedules))
	}
}

func recipeDraw(recipe recipe.Lock, opts CheckOptions) func(*rapid.T) drawn {
	w := opts.Workload
	w.Recipe = recipe
	cfg := opts.Config
	cfg.Faults = cfg.Faults.Or(sim.DefaultFaults())
	return func(rt *rapid.T) drawn { return drawRecipeCheck(rt, w, cfg) }
}

func programsDraw(cfg sim.Config, programs int) func(*rapid.T) drawn {
	cfg.Faults = cfg.Faults.Or(sim.DefaultFaults())
	return func(rt *rapid.T) drawn { return drawConfig(rt, harness.Workload{Clients: programs}, cfg) }
}

// programsRunner runs programs as a runner, judged by their verdicts.
func programsRunner(invariant func(*sim.Sim) error, programs []sim.Program) runner {
	return func(cfg sim.Config, ch sim.Chooser, _ harness.Subject) (*harness.Report, error) {
		if invariant != nil {
			cfg.Observe = func(s *sim.Sim, _ int, _ sim.Event) error { return invariant(s) }
		}
		res, err := sim.Run(cfg, ch, programs...)
		if err != nil {
			return nil, err
		}
		vs := res.Verdicts()
		harness.ExplainVerdicts(res, vs)
		return &harness.Report{Result: res, Violations: vs}, nil
	}
}

// shrinkTime is -zksim.shrinktime, as rapid's -rapid.shrinktime: how long
// each violation class's counterexample is made smaller, at most.
var shrinkTime = flag.Duration("zksim.shrinktime", harness.DefaultShrinkTime,
	"how long harnesstest shrinks each violation class's counterexample, at most")
