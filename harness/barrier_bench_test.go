package harness_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// BenchmarkBarrierSchedules: the good barriers (double: 3 clients x 2
// rounds; single: a controller and 2 waiters) under every legal fault
// kind (barrierConfig), random walk and PCT; one op is one schedule,
// checked, from seed 1 up, and any violation fails. Run with
// -benchtime 100000x for the 100k-schedule claim.
func BenchmarkBarrierSchedules(b *testing.B) {
	for _, single := range []bool{false, true} {
		for _, pct := range []bool{false, true} {
			name := map[bool]string{false: "double", true: "single"}[single] + "/" + map[bool]string{false: "random-walk", true: "pct"}[pct]
			b.Run(name, func(b *testing.B) {
				seed, steps := uint64(0), 0
				w := harness.Barrier(zoo.DoubleBarrier(), harness.BarrierWorkload{Single: single})
				for b.Loop() {
					seed++
					rep, err := harness.Run(barrierConfig(seed, pct), sim.NewSeeded(seed), w)
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
}

// BenchmarkBarrierZooFind: for each barrier zoo exhibit, schedules and
// wall time until its smallest workload under every legal fault kind
// shows its class, over 20 starting seeds (random walk, and PCT):
// median and 95th percentile, as BenchmarkZooFind.
func BenchmarkBarrierZooFind(b *testing.B) {
	for _, ex := range zoo.Barriers() {
		for _, pct := range []bool{false, true} {
			b.Run(strings.TrimPrefix(ex.Name, "zoo/")+map[bool]string{false: "/random-walk", true: "/pct"}[pct], func(b *testing.B) {
				var counts []int
				var times []time.Duration
				for b.Loop() {
					counts, times = counts[:0], times[:0]
					for start := range 20 {
						begin := time.Now()
						n := barrierHunt(b, ex, pct, uint64(start*1000), 1000)
						if n > 1000 {
							b.Fatalf("%s: not found from seed %d", ex.Name, start*1000)
						}
						counts = append(counts, n)
						times = append(times, time.Since(begin))
					}
				}
				sort.Ints(counts)
				slices.Sort(times)
				b.ReportMetric(float64(counts[len(counts)/2]), "median-schedules")
				b.ReportMetric(float64(counts[len(counts)*95/100]), "p95-schedules")
				b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
				b.ReportMetric(float64(times[len(times)*95/100].Microseconds())/1000, "p95-ms")
			})
		}
	}
}

// BenchmarkBarrierExploreZoo: the systematic search of each exhibit's
// smallest workload, one fault of each kind, deepening on deviations:
// the deviations, states and schedules until it finds the class. Run
// with -benchtime 1x: the search is deterministic.
func BenchmarkBarrierExploreZoo(b *testing.B) {
	for _, ex := range zoo.Barriers() {
		b.Run(strings.TrimPrefix(ex.Name, "zoo/"), func(b *testing.B) {
			var res *sim.Exploration
			for b.Loop() {
				var err error
				res, err = sim.Explore(context.Background(), sim.Config{Faults: exploreFaults}, harness.AsScenario(barrierZooWorkload(ex)),
					sim.Bounds{Deviations: 4, Class: ex.Violation})
				if err != nil || res.Failure == nil {
					b.Fatalf("%v: not found", err)
				}
			}
			b.ReportMetric(float64(ex.Clients), "clients")
			b.ReportMetric(float64(res.Deviation), "deviations")
			b.ReportMetric(float64(res.Visited), "states")
			b.ReportMetric(float64(res.Schedules), "schedules")
			b.ReportMetric(float64(len(res.Failure.Decisions)), "decisions")
		})
	}
}

// BenchmarkBarrierExhaust: the systematic search exhausts the good
// barriers at fixed bounds (one fault of each kind, up to K deviations,
// one core): states, schedules and states/s. Run with -benchtime 1x.
func BenchmarkBarrierExhaust(b *testing.B) {
	for _, tc := range []struct {
		clients, rounds, devs int
		single                bool
	}{{2, 1, 2, false}, {2, 2, 1, false}, {3, 1, 1, false}, {3, 2, 1, false}, {3, 1, 2, true}} {
		name := fmt.Sprintf("double/%dx%d/K=%d", tc.clients, tc.rounds, tc.devs)
		if tc.single {
			name = fmt.Sprintf("single/%d/K=%d", tc.clients, tc.devs)
		}
		b.Run(name, func(b *testing.B) {
			w := harness.Barrier(zoo.DoubleBarrier(), harness.BarrierWorkload{Clients: tc.clients, Rounds: tc.rounds, Single: tc.single})
			var res *sim.Exploration
			for b.Loop() {
				var err error
				res, err = sim.Explore(context.Background(), sim.Config{Faults: exploreFaults}, harness.AsScenario(w), sim.Bounds{Deviations: tc.devs, NoDeepening: true})
				switch {
				case err != nil:
					b.Fatal(err)
				case res.Failure != nil:
					b.Fatalf("counterexample: %+v", res.Failure)
				case !res.Exhausted:
					b.Fatalf("not exhausted: %s", res.Coverage())
				}
			}
			b.ReportMetric(float64(res.Visited), "states")
			b.ReportMetric(float64(res.Schedules), "schedules")
			b.ReportMetric(float64(res.Visited)/res.Elapsed.Seconds(), "states/s")
		})
	}
}
