package semaphore_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/harness/harnesstest"
	"github.com/zksim/zksim/internal/longtest"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// everyFault is every legal fault kind, as harnesstest's zero options
// draw them (docs/harness.md).
var everyFault = sim.Faults{Percent: 10, LoseRequest: 2, LoseReply: 2, Disconnect: 2, Crash: 1, Pause: 1, Reap: 1, Abandon: 1}

// The semaphore under the harness as the locks are: rapid draws the
// workload (clients, acquisitions, deadlines) and the faults, and every
// schedule is judged by the checkers: at most N holders at once, herd,
// no write accepted after its lease was lost, orphans and liveness.
func TestRecipe_Check(t *testing.T) {
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			harnesstest.Check(t, harness.Lock(zoo.Semaphore(n), harness.Workload{}), harnesstest.Options{Config: sim.Config{Faults: everyFault}})
		})
	}
}

// exploreFaults is one fault of each kind, as harness's search tests use.
var exploreFaults = sim.Faults{LoseRequest: 1, LoseReply: 1, Disconnect: 1, Crash: 1, Pause: 1, Reap: 1, Abandon: 1}

// Every schedule of three clients (one more than the leases) with one
// fault of each kind and one deviation holds, half of the acquisitions
// with a deadline; the bounded space is exhausted.
func TestRecipe_Exhaustive(t *testing.T) { testExhaustive(t, 2) }

// The same bounds exhausted for a semaphore of 3 leases: a long test
// (a minute under -race, as much as the semaphore of 2's).
func TestRecipe_ExhaustiveOfThree(t *testing.T) {
	longtest.Skip(t)
	testExhaustive(t, 3)
}

func testExhaustive(t *testing.T, n int) {
	w := harness.Workload{Clients: 3, Acquisitions: 1, TimeoutTicks: 12, TimeoutPercent: 50}
	res := harnesstest.CheckExhaustive(t, harness.Lock(zoo.Semaphore(n), w), harnesstest.Options{Config: sim.Config{Faults: exploreFaults}},
		sim.Bounds{Deviations: 1})
	if !res.Exhausted {
		t.Fatalf("not exhausted: %s", res.Coverage())
	}
}

// A client that gives its session up (the abandon fault) while its
// grant's mark is in flight must not be handed the lease: the node goes
// when the old session expires, and the next waiter takes the lease while
// the first believes it holds. Check found it (max-leases); the
// schedule, replayed, now ends without a violation.
func TestRecipe_AbandonWhileMarking(t *testing.T) {
	text, err := os.ReadFile("testdata/abandon-while-marking.trace")
	if err != nil {
		t.Fatal(err)
	}
	f, err := harness.ParseTraceFile(string(text))
	if err != nil {
		t.Fatal(err)
	}
	w, err := harness.Lock(zoo.Semaphore(2), harness.Workload{}).Parse(f.Workload)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := harness.Run(f.Config, sim.Replay(f.Decisions), w)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("violations: %v", rep.Violations)
	}
}
