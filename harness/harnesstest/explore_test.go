package harnesstest_test

import (
	"os"
	"strings"
	"testing"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/harness/harnesstest"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// exploreFaults is one fault of each kind, as harness's search tests use.
var exploreFaults = sim.Faults{LoseRequest: 1, LoseReply: 1, Disconnect: 1, Crash: 1, Pause: 1, Reap: 1, Abandon: 1}

// zksim's own locks survive every schedule of two clients with one fault
// of each kind and one deviation: no false alarm, and the bounded space
// is exhausted. (BENCHMARKS.md has larger bounds.)
func TestExplore_OwnLocksExhaustedClean(t *testing.T) {
	for _, r := range []recipe.Lock{zoo.Mutex(), zoo.RWMutex()} {
		t.Run(r.Name, func(t *testing.T) {
			w := harness.Workload{Clients: 2, Acquisitions: 1, ReadPercent: 50, TimeoutTicks: 12, TimeoutPercent: 50}
			res := harnesstest.CheckExhaustive(t, harness.Lock(r, w), harnesstest.Options{Config: sim.Config{Faults: exploreFaults}},
				sim.Bounds{Deviations: 1})
			if !res.Exhausted {
				t.Fatalf("not exhausted: %s", res.Coverage())
			}
		})
	}
}

// TestCheckExhaustive_FailingChild runs only as a child of
// TestCheckExhaustive_ShrinksTheWorkload.
func TestCheckExhaustive_FailingChild(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("run by TestCheckExhaustive_ShrinksTheWorkload")
	}
	ex, _ := zoo.Lookup(zoo.NameAssumeOnWake)
	harnesstest.CheckExhaustive(t, harness.Lock(ex.Recipe, harness.Workload{Clients: 3, Acquisitions: 1}),
		harnesstest.Options{ArtifactDir: os.Getenv(childEnv)}, sim.Bounds{Deviations: 2})
}

// The systematic search's counterexample is searched for again at
// smaller workloads: found at 3 clients, reported at the 2 that show it.
func TestCheckExhaustive_ShrinksTheWorkload(t *testing.T) {
	out := runChild(t, "TestCheckExhaustive_FailingChild", t.TempDir())
	if !strings.Contains(out, "mutual-exclusion, shrunk to 2 clients x 1 acquisition, ") {
		t.Errorf("not shrunk to 2 clients:\n%s", out)
	}
}
