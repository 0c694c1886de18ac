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

// Options configures Check and CheckExhaustive. Its zero value checks
// with full power: every legal fault kind, as `zksim run` does by
// default.
type Options struct {
	// Config bounds the runs. Its Faults are the faults of each kind at
	// most (each check keeps some kinds and leaves the others out): left
	// at the zero value, sim.DefaultFaults() (CheckExhaustive:
	// sim.OneOfEach()); some budgets set, exactly those (at 10% of steps
	// if Percent is 0); sim.Faults{None: true}, none. Server.Followers 0
	// is drawn as 0 or 1 and Server.Seed 0 as the check's seed; the rest
	// (Setup, Observe, the bounds) is used as given.
	Config sim.Config
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

// Check checks w under faulted schedules with every checker of its
// judge. rapid draws each check's shape (up to w's: half the checks
// the whole of it), fault kinds and seed within opts' bounds
// (-rapid.checks checks, default 100), and each check runs 10 schedules
// from consecutive seeds; Lock and Barrier draw their workload's other
// settings too. Every violation class found is shrunk to a minimal
// counterexample (smallest workload, then fewest decisions), run again
// to confirm it replays (harness.Confirm), saved as a trace file and an
// HTML report, and reported once with the violations, the end of the
// trace, and the Replay call that reproduces it.
func Check(t *testing.T, w harness.Subject, opts Options) {
	t.Helper()
	if err := harness.Validate(opts.Config, w); err != nil {
		t.Fatal(err) // before rapid starts: a bad option is not a check that failed
	}
	found, schedules, err := explore(t, subjectDraw(w, opts.Config), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		t.Fatal(newFailures(t, w, opts).report(found, schedules))
	}
}

// Lock is recipe's lock workload, w's recipe replaced, for Check: each
// check runs up to w.Clients (default 5) clients of up to
// w.Acquisitions (default 3) acquisitions each, and draws the hold time,
// ReadPercent (for read/write recipes) and TimeoutTicks where w leaves
// them at 0; the other fields are used as given. CheckExhaustive and
// Replay run it as given.
func Lock(recipe recipe.Lock, w harness.Workload) harness.Subject {
	w.Recipe = recipe
	return lockDrawn{w}
}

// Barrier is recipe's barrier workload, w's recipe replaced, for Check:
// each check runs 2 to w.Clients (default 4) clients of 1 to w.Rounds
// (default 2) rounds, the single barrier instead in half the checks if
// the recipe has one, a random walk or PCT; the other fields are used as
// given. CheckExhaustive and Replay run it as given (default 3 clients x
// 2 rounds).
func Barrier(recipe recipe.Barrier, w harness.BarrierWorkload) harness.Subject {
	w.Recipe = recipe
	return barrierDrawn{w}
}

// lockDrawn and barrierDrawn are workloads whose checks draw their
// settings.
type (
	lockDrawn    struct{ harness.Workload }
	barrierDrawn struct{ harness.BarrierWorkload }
)

// drawer is a Subject that draws its own checks.
type drawer interface {
	draw(rt *rapid.T, cfg sim.Config) drawn
}

func (w lockDrawn) draw(rt *rapid.T, cfg sim.Config) drawn {
	return drawRecipeCheck(rt, w.Workload, cfg)
}

func (w barrierDrawn) draw(rt *rapid.T, cfg sim.Config) drawn {
	return drawBarrierCheck(rt, w.BarrierWorkload, cfg)
}

// subjectDraw draws the checks of w under cfg's bounds.
func subjectDraw(w harness.Subject, cfg sim.Config) func(*rapid.T) drawn {
	cfg.Faults = faultsOr(cfg.Faults, sim.DefaultFaults())
	if d, ok := w.(drawer); ok {
		return func(rt *rapid.T) drawn { return d.draw(rt, cfg) }
	}
	return func(rt *rapid.T) drawn { return drawShape(rt, w, cfg) }
}

// shrinkTime is -zksim.shrinktime, as rapid's -rapid.shrinktime: how long
// each violation class's counterexample is made smaller, at most.
var shrinkTime = flag.Duration("zksim.shrinktime", harness.DefaultShrinkTime,
	"how long harnesstest shrinks each violation class's counterexample, at most")
