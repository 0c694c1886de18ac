package harness_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// BenchmarkExploreZoo: for each zoo bug, the systematic search of its
// smallest workload (2 clients x 1, or 3 where 2 do not show it) with one
// fault of each kind, deepening on deviations: the states and time until
// it finds the bug. Run with -benchtime 1x: the search is deterministic.
func BenchmarkExploreZoo(b *testing.B) { benchmarkExploreZoo(b, false) }

// BenchmarkExploreZooSymmetry is BenchmarkExploreZoo with
// Bounds.Symmetry: every bug is found at no more deviations.
func BenchmarkExploreZooSymmetry(b *testing.B) { benchmarkExploreZoo(b, true) }

func benchmarkExploreZoo(b *testing.B, symmetry bool) {
	for _, ex := range zoo.Locks() {
		b.Run(strings.TrimPrefix(ex.Name, "zoo/"), func(b *testing.B) {
			w, cfg := zooSearch(ex)
			var res *harness.Exploration
			for b.Loop() {
				var err error
				res, err = harness.Explore(context.Background(), cfg, w, sim.Bounds{Deviations: 4, Class: ex.Violation, Symmetry: symmetry})
				if err != nil || res.Counterexample == nil {
					b.Fatalf("%v: not found: %s", err, res.Coverage())
				}
			}
			b.ReportMetric(float64(w.Shape().Clients), "clients")
			b.ReportMetric(float64(res.Deviation), "deviations")
			b.ReportMetric(float64(res.Visited), "states")
			b.ReportMetric(float64(res.Schedules), "schedules")
			b.ReportMetric(float64(len(res.Counterexample.Report.Result.Trace)), "trace-lines")
		})
	}
}

// exploreRecipes are the good recipes the systematic search exhausts.
func exploreRecipes() []recipe.Lock {
	return []recipe.Lock{zoo.Mutex(), zoo.RWMutex(), zoo.ReentrantMutex(), zoo.MultiMutex(), zoo.Election(),
		zoo.Semaphore(2)}
}

// BenchmarkExploreExhaust: the systematic search exhausts each good lock
// at fixed bounds (clients x 1 acquisition, one fault of each kind, up to
// K deviations) on one core, with and without reductions: states,
// schedules, states/s, and the schedules plain enumeration needs for the
// same bounds over those the reduced search needs. Run with -benchtime 1x.
func BenchmarkExploreExhaust(b *testing.B) {
	for _, r := range exploreRecipes() {
		for _, bound := range []struct{ clients, devs int }{{2, 2}, {3, 1}} {
			name := fmt.Sprintf("%s/%dx1/K=%d", strings.ReplaceAll(r.Name, "/", "-"), bound.clients, bound.devs)
			b.Run(name, func(b *testing.B) {
				w := harness.Lock(r, harness.Workload{Clients: bound.clients, Acquisitions: 1, ReadPercent: 50})
				var res, plain *harness.Exploration
				for b.Loop() {
					res = exhaust(b, w, sim.Bounds{Deviations: bound.devs, NoDeepening: true})
				}
				plain = exhaust(b, w, sim.Bounds{Deviations: bound.devs, NoDeepening: true, NoReduction: true})
				b.ReportMetric(float64(res.Visited), "states")
				b.ReportMetric(float64(res.Schedules), "schedules")
				b.ReportMetric(float64(res.Visited)/res.Elapsed.Seconds(), "states/s")
				b.ReportMetric(float64(plain.Schedules)/float64(res.Schedules), "reduction")
			})
		}
	}
}

func exhaust(b *testing.B, w harness.Subject, bounds sim.Bounds) *harness.Exploration {
	res, err := harness.Explore(context.Background(), sim.Config{Faults: exploreFaults}, w, bounds)
	switch {
	case err != nil:
		b.Fatal(err)
	case res.Counterexample != nil:
		b.Fatalf("counterexample: %v", res.Counterexample.Report.Violations)
	case !res.Exhausted:
		b.Fatalf("not exhausted: %s", res.Coverage())
	}
	return res
}

// BenchmarkExploreReductions: each reduction's share on the whole space
// of a small workload (lock, 2 clients x 1 acquisition, no deviation
// bound, so that sleep sets and symmetry both apply): the schedules and
// distinct states of plain enumeration, then with fingerprints, sleep sets
// and symmetry added one by one. Run with -benchtime 1x.
func BenchmarkExploreReductions(b *testing.B) {
	for _, tc := range []struct {
		name   string
		faults sim.Faults
	}{{"no-faults", sim.Faults{}}, {"lose-reply", sim.Faults{LoseReply: 1}}} {
		w := harness.Lock(zoo.Mutex(), harness.Workload{Clients: 2, Acquisitions: 1})
		for _, step := range []struct {
			name   string
			bounds sim.Bounds
		}{
			{"plain", sim.Bounds{NoReduction: true}},
			{"fingerprints+sleep", sim.Bounds{}},
			{"fingerprints+sleep+symmetry", sim.Bounds{Symmetry: true}},
		} {
			if tc.name != "no-faults" && step.name == "plain" {
				continue // too many schedules to enumerate
			}
			b.Run(tc.name+"/"+step.name, func(b *testing.B) {
				bounds := step.bounds
				bounds.Deviations, bounds.NoDeepening = -1, true
				var res *harness.Exploration
				for b.Loop() {
					var err error
					res, err = harness.Explore(context.Background(), sim.Config{Faults: tc.faults}, w, bounds)
					if err != nil || res.Counterexample != nil || !res.Complete {
						b.Fatalf("%v: %s", err, res.Coverage())
					}
				}
				b.ReportMetric(float64(res.Schedules), "schedules")
				b.ReportMetric(float64(res.Visited), "states")
			})
		}
	}
}
