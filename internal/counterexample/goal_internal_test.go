package counterexample

import (
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"
)

// A run headed by a lesser class shrinks to a counterexample headed by
// that class: here any schedule cut shorter than 10 choices shows a
// mutual exclusion too, which the shrink for the herd must not take, or
// the file named after the herd would read mutual-exclusion.
func TestShrinkSeed_KeepsTheHeadline(t *testing.T) {
	run := func(cfg sim.Config, ch sim.Chooser) (*harness.Report, error) {
		n := 0
		for range 10 {
			if ch.Choose(2, "x") == 1 {
				n++
			}
		}
		vs := []check.Violation{{Class: check.Herd}}
		if n < 3 {
			vs = append(vs, check.Violation{Class: check.MutualExclusion})
		}
		return &harness.Report{Result: &sim.Result{}, Violations: vs}, nil
	}
	for seed := uint64(1); seed <= 20; seed++ {
		var recorded []int
		rec := sim.Record(sim.NewSeeded(seed), &recorded)
		if rep, _ := run(sim.Config{}, rec); len(rep.Classes()) > 1 {
			continue // headed by the mutual exclusion from the start
		}
		ce, ok := shrinkSeed(harness.Lock(recipe.Lock{}, harness.Workload{}), run, sim.Config{}, seed, check.Herd, newDeadline(0))
		if !ok || checkers.Worst(ce.Report.Classes()) != check.Herd {
			t.Errorf("seed %d: shrunk to %v", seed, ce.Report.Classes())
		}
	}
}
