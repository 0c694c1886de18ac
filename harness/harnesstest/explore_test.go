package harnesstest_test

import (
	"testing"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/harness/harnesstest"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/rwlock"
	"github.com/zksim/zksim/sim"
)

// exploreFaults is one fault of each kind, as harness's search tests use.
var exploreFaults = sim.Faults{LoseRequest: 1, LoseReply: 1, Disconnect: 1, Crash: 1, Pause: 1, Reap: 1, Abandon: 1}

// zksim's own locks survive every schedule of two clients with one fault
// of each kind and one deviation: no false alarm, and the bounded space
// is exhausted. (BENCHMARKS.md has larger bounds.)
func TestExplore_OwnLocksExhaustedClean(t *testing.T) {
	for _, r := range []lock.Recipe{lock.MutexRecipe(), rwlock.Recipe()} {
		t.Run(r.Name, func(t *testing.T) {
			w := harness.Workload{Clients: 2, Acquisitions: 1, ReadPercent: 50, TimeoutTicks: 12, TimeoutPercent: 50}
			res := harnesstest.CheckExhaustive(t, r, harnesstest.CheckOptions{Config: sim.Config{Faults: exploreFaults}, Workload: w},
				sim.Bounds{Deviations: 1})
			if !res.Exhausted {
				t.Fatalf("not exhausted: %s", res.Coverage())
			}
		})
	}
}
