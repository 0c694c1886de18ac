package harnesstest_test

import (
	"testing"

	"github.com/zksim/zksim/barrier"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/harness/harnesstest"
	"github.com/zksim/zksim/sim"
)

// The good barriers pass CheckBarrier under every legal fault kind.
func TestCheckBarrier_Good(t *testing.T) {
	harnesstest.CheckBarrier(t, barrier.DoubleRecipe(), harnesstest.BarrierOptions{Config: sim.Config{
		Faults: sim.Faults{Percent: 10, LoseRequest: 2, LoseReply: 2, Disconnect: 2, Crash: 1, Pause: 1, Reap: 1, Abandon: 1}}})
}

// And CheckBarrierExhaustive at small bounds.
func TestCheckBarrierExhaustive_Good(t *testing.T) {
	opts := harnesstest.BarrierOptions{Config: sim.Config{Faults: sim.Faults{LoseRequest: 1, LoseReply: 1, Disconnect: 1, Crash: 1, Pause: 1, Reap: 1, Abandon: 1}},
		Workload: harness.BarrierWorkload{Clients: 2, Rounds: 1}}
	res := harnesstest.CheckBarrierExhaustive(t, barrier.DoubleRecipe(), opts, sim.Bounds{Deviations: 1})
	if !res.Exhausted {
		t.Fatalf("not exhausted: %s", res.Coverage())
	}
}
