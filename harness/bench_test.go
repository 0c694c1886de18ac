package harness_test

import (
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/simhook"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// BenchmarkStandardWorkload: 5 clients x 3 acquisitions of the good lock,
// every fault kind on; one op is one whole schedule, checked.
func BenchmarkStandardWorkload(b *testing.B) {
	defer simhook.KeepWorkers()() // as zksim run does
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
				rep, err := harness.Run(sim.Config{PCT: pct, Faults: allFaults, NoTrace: true}, sim.NewSeeded(seed),
					harness.Lock(zoo.Mutex(), harness.Workload{}))
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

// BenchmarkZooFind: for each zoo bug, schedules and wall time until the
// standard faulted workload shows its violation class, over 20 starting
// seeds; reports the median and 95th percentile.
func BenchmarkZooFind(b *testing.B) {
	for _, ex := range zoo.Locks() {
		b.Run(strings.TrimPrefix(ex.Name, "zoo/"), func(b *testing.B) {
			var counts []int
			var times []time.Duration
			for b.Loop() {
				counts, times = counts[:0], times[:0]
				for start := range 20 {
					begin := time.Now()
					n := 0
					for s := range 1000 {
						n++
						seed := uint64(start*1000 + s)
						cfg := zooConfigFor(ex)(seed)
						cfg.NoTrace = true
						rep, _ := harness.Run(cfg, sim.NewSeeded(seed), zooWorkload(ex))
						if slices.Contains(rep.Classes(), ex.Violation) {
							break
						}
					}
					counts = append(counts, n)
					times = append(times, time.Since(begin))
				}
			}
			sort.Ints(counts)
			sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
			b.ReportMetric(float64(counts[len(counts)/2]), "median-schedules")
			b.ReportMetric(float64(counts[len(counts)*95/100]), "p95-schedules")
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
			b.ReportMetric(float64(times[len(times)*95/100].Microseconds())/1000, "p95-ms")
		})
	}
}
