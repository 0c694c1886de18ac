package election_test

import (
	"testing"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/harness/harnesstest"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// everyFault is every legal fault kind, abandoned sessions included.
var everyFault = sim.Faults{Percent: 10, LoseRequest: 2, LoseReply: 2, Disconnect: 2, Crash: 1, Pause: 1, Reap: 1, Abandon: 1}

// The election as the harness drives it (leaders write to the resource
// with their term, fenced) passes rapid's drawn and shrunk schedules with
// every fault: one leader at a time, one leader per term, terms growing,
// stale writes refused, one follower woken per leader change, nothing
// left behind, no deadlock.
func TestRecipe_Check(t *testing.T) {
	harnesstest.Check(t, harness.Lock(zoo.Election(), harness.Workload{}), harnesstest.Options{Config: sim.Config{Faults: everyFault}})
}

// Every schedule of two candidates campaigning once, with one fault of
// each kind and one deviation from the default schedule, passes, and the
// bounded space is exhausted. (BENCHMARKS.md has larger bounds.)
func TestRecipe_Exhaustive(t *testing.T) {
	one := sim.Faults{LoseRequest: 1, LoseReply: 1, Disconnect: 1, Crash: 1, Pause: 1, Reap: 1, Abandon: 1}
	w := harness.Workload{Clients: 2, Acquisitions: 1, TimeoutTicks: 12, TimeoutPercent: 50}
	res := harnesstest.CheckExhaustive(t, harness.Lock(zoo.Election(), w), harnesstest.Options{Config: sim.Config{Faults: one}},
		sim.Bounds{Deviations: 1})
	if !res.Exhausted {
		t.Fatalf("not exhausted: %s", res.Coverage())
	}
}
