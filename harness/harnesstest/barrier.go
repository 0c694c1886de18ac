package harnesstest

import (
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/zksim/zksim/barrier"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/sim"
)

// BarrierOptions configures CheckBarrier and CheckBarrierExhaustive. Its
// zero value checks with full power, as CheckOptions' does.
type BarrierOptions struct {
	// Config bounds the runs as CheckOptions.Config does: the faults of
	// each kind at most (zero: every legal kind, sim.DefaultFaults(), or
	// sim.OneOfEach() for CheckBarrierExhaustive; sim.Faults{None: true}:
	// none), a follower drawn when Server.Followers is 0, and the
	// server's seed the check's when Server.Seed is 0.
	Config sim.Config
	// Workload bounds the workload (Recipe is set by the check): each
	// check of CheckBarrier runs 2 to Clients (default 4) clients of 1 to
	// Rounds (default 2) rounds, the single barrier instead in half the
	// checks if the recipe has one; the other fields are used as given.
	// CheckBarrierExhaustive runs it as given (harness.BarrierWorkload's
	// defaults: 3 clients x 2 rounds).
	Workload harness.BarrierWorkload
	// ArtifactDir receives the trace file and HTML report of a failure,
	// as CheckOptions.ArtifactDir.
	ArtifactDir string
	// ShrinkTime bounds the time spent shrinking each counterexample, as
	// CheckOptions.ShrinkTime.
	ShrinkTime time.Duration
}

// CheckBarrier checks a barrier recipe with the barrier workload
// (harness.BarrierWorkload) under faulted schedules: entry and exit
// safety, the single barrier's, herd, nodes left behind and liveness.
// It explores and reports as CheckRecipe does: rapid draws each check's
// shape, fault kinds, strategy (random walk or PCT) and seed within
// opts' bounds (-rapid.checks checks, default 100), each check runs 10
// schedules from consecutive seeds, and every violation class found is
// shrunk (smallest workload, then fewest decisions), confirmed, saved as
// a trace file and an HTML report, and reported once with the
// ReplayBarrierFile call that replays it.
func CheckBarrier(t *testing.T, recipe barrier.Recipe, opts BarrierOptions) {
	t.Helper()
	if err := harness.ValidateBarrier(opts.Config, recipe, opts.Workload); err != nil {
		t.Fatal(err) // before rapid starts: a bad option is not a check that failed
	}
	opts.barrierSubject(t, recipe).check(t, barrierDraw(recipe, opts))
}

// barrierSubject is what CheckBarrier and CheckBarrierExhaustive report
// a failure of recipe as.
func (opts BarrierOptions) barrierSubject(t *testing.T, recipe barrier.Recipe) failureSubject {
	return failureSubject{what: recipe.Name, test: t.Name(), dir: opts.ArtifactDir, shrinkTime: opts.ShrinkTime,
		replay: "harnesstest.ReplayBarrierFile(t, %q, recipe)", run: runSubject}
}

func barrierDraw(recipe barrier.Recipe, opts BarrierOptions) func(*rapid.T) drawn {
	w := opts.Workload
	w.Recipe = recipe
	cfg := opts.Config
	cfg.Faults = cfg.Faults.Or(sim.DefaultFaults())
	return func(rt *rapid.T) drawn { return drawBarrierCheck(rt, w, cfg) }
}

// CheckBarrierExhaustive explores every schedule of recipe's barrier
// workload within b (see harness.Explore): opts.Workload is run as
// given (default 3 clients x 2 rounds: keep it small, 2 or 3 clients x
// 1), under opts.Config's fault budgets (zero: sim.OneOfEach()). It
// fails t with the first counterexample (with deepening, one with the
// fewest deviations), searched for again at smaller workloads, reported
// like CheckBarrier's, and logs what it covered.
func CheckBarrierExhaustive(t *testing.T, recipe barrier.Recipe, opts BarrierOptions, b sim.Bounds) *harness.Exploration {
	t.Helper()
	w := opts.Workload
	w.Recipe = recipe
	return opts.barrierSubject(t, recipe).exhaust(t, opts.Config, w, b)
}
