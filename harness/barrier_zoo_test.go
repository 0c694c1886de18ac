package harness_test

import (
	"slices"
	"testing"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// barrierZooWorkload is the smallest workload that shows ex's defect.
func barrierZooWorkload(ex zoo.Exhibit) harness.Subject {
	return harness.Barrier(ex.Barrier, harness.BarrierWorkload{Clients: ex.Clients, Rounds: ex.Rounds, Single: ex.Single})
}

// barrierHunt runs seeds from start until a run shows ex's class and
// returns how many schedules it took (limit+1: not found).
func barrierHunt(t testing.TB, ex zoo.Exhibit, pct bool, start uint64, limit int) int {
	for i := range limit {
		seed := start + uint64(i)
		cfg := barrierConfig(seed, pct)
		rep, err := harness.Run(cfg, sim.NewSeeded(seed), barrierZooWorkload(ex))
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(rep.Classes(), ex.Violation) {
			return i + 1
		}
	}
	return limit + 1
}

// Every barrier zoo exhibit shows its class within 200 faulted schedules,
// random-walk and PCT.
func TestBarrierZoo_FoundSeeded(t *testing.T) {
	for _, ex := range zoo.Barriers() {
		for _, pct := range []bool{false, true} {
			n := barrierHunt(t, ex, pct, 0, 200)
			if n > 200 {
				t.Errorf("%s (pct %v): no %s in 200 schedules", ex.Name, pct, ex.Violation)
				continue
			}
			t.Logf("%-18s pct=%-5v %-14s after %d schedules", ex.Name, pct, ex.Violation, n)
		}
	}
}

// The systematic search finds every barrier zoo exhibit's class.
func TestBarrierZoo_FoundByExplore(t *testing.T) {
	for _, ex := range zoo.Barriers() {
		res, err := sim.Explore(t.Context(), sim.Config{Faults: exploreFaults}, harness.AsScenario(barrierZooWorkload(ex)),
			sim.Bounds{Deviations: 3, Class: ex.Violation, MaxStates: 200000})
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure == nil {
			t.Errorf("%s: no %s: %s", ex.Name, ex.Violation, res.Coverage())
			continue
		}
		t.Logf("%-18s %-14s deviations %d, %d states, %d schedules", ex.Name, ex.Violation, res.Deviation, res.Visited, res.Schedules)
	}
}
