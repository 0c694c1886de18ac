package sim_test

import (
	"testing"

	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/sim"
)

// BenchmarkStandardWorkload: 5 clients x 3 acquisitions of the good lock,
// every fault kind on; one op is one whole schedule, checked.
func BenchmarkStandardWorkload(b *testing.B) {
	for _, pct := range []bool{false, true} {
		name := "random-walk"
		if pct {
			name = "pct"
		}
		b.Run(name, func(b *testing.B) {
			seed := uint64(0)
			steps := 0
			for b.Loop() {
				seed++
				rep, err := sim.RunWorkload(sim.Config{PCT: pct, Faults: allFaults, NoTrace: true}, sim.NewSeeded(seed),
					sim.Workload{Recipe: lock.MutexRecipe()})
				if err != nil || !rep.OK() {
					b.Fatalf("seed %d: %v %v", seed, err, rep.Violations)
				}
				steps += rep.Result.Steps
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "schedules/s")
			b.ReportMetric(float64(steps)/float64(b.N), "steps/schedule")
		})
	}
}
