package harnesstest

import (
	"flag"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/counterexample"
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
	// is drawn as 0 or 1; the rest (Server.Seed, Setup, Observe, the
	// bounds) is used as given.
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
// (-rapid.checks checks, default 100; rapid runs a fifth of them under
// go test -short), and each check runs 10 schedules from consecutive
// seeds. The Subjects of harness.Lock draw their
// settings too: up to the Workload's Clients (default 5) and
// Acquisitions (default 3), and the hold time, ReadPercent (read/write
// recipes) and TimeoutTicks where it leaves them at 0; those of
// harness.Barrier 2 to Clients (default 4) clients of 1 to Rounds
// (default 2) rounds, the single barrier in half the checks if the
// recipe has one, a random walk or PCT. Every violation class found is
// shrunk to a minimal counterexample (smallest workload, then fewest
// decisions), run again to confirm it replays, saved as a trace file
// and an HTML report, and reported once with the violations, the end of
// the trace, and the Replay call that reproduces it.
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

// lockSettings and barrierSettings are the Subjects of harness.Lock and
// harness.Barrier, whose checks draw their settings within what they
// were given.
type (
	lockSettings interface {
		LockSettings() (recipe.Lock, harness.Workload)
	}
	barrierSettings interface {
		BarrierSettings() (recipe.Barrier, harness.BarrierWorkload)
	}
)

// subjectDraw draws the checks of w under cfg's bounds.
func subjectDraw(w harness.Subject, cfg sim.Config) func(*rapid.T) drawn {
	cfg.Faults = faultsOr(cfg.Faults, sim.DefaultFaults())
	switch w := w.(type) {
	case lockSettings:
		r, lw := w.LockSettings()
		return func(rt *rapid.T) drawn { return drawRecipeCheck(rt, r, lw, cfg) }
	case barrierSettings:
		r, bw := w.BarrierSettings()
		return func(rt *rapid.T) drawn { return drawBarrierCheck(rt, r, bw, cfg) }
	}
	return func(rt *rapid.T) drawn { return drawShape(rt, w, cfg) }
}

// shrinkTime is -zksim.shrinktime, as rapid's -rapid.shrinktime: how long
// each violation class's counterexample is made smaller, at most.
var shrinkTime = flag.Duration("zksim.shrinktime", counterexample.DefaultShrinkTime,
	"how long harnesstest shrinks each violation class's counterexample, at most")
