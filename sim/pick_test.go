package sim_test

import (
	"fmt"
	"testing"

	"github.com/zksim/zksim/sim"
)

// TestPick_AnyFaultMatchesTheList: the random walk's quick question (is
// any fault possible?) answers as the full list of possible faults does,
// at every step of runs under budgets of one kind each and of all kinds
// (each budget runs out, so both answers occur). A wrong answer would
// change which schedules a seed makes.
func TestPick_AnyFaultMatchesTheList(t *testing.T) {
	budgets := []sim.Faults{everyFault,
		{Percent: 20, LoseRequest: 2}, {Percent: 20, LoseReply: 2}, {Percent: 20, Disconnect: 3},
		{Percent: 20, Crash: 1}, {Percent: 20, Pause: 2}, {Percent: 20, Reap: 1},
		{Percent: 20, Reorder: 2}, {Percent: 20, Abandon: 1}}
	seen := map[bool]int{}
	for _, f := range budgets {
		for seed := range uint64(15) {
			cfg := sim.Config{Faults: f, NoTrace: true}
			cfg.Observe = func(s *sim.Sim, step int, _ sim.Event) error {
				some, all := sim.FaultsNow(s)
				seen[some]++
				if some != (len(all) > 0) {
					return fmt.Errorf("step %d: anyFault says %v, the list is %v", step, some, all)
				}
				return nil
			}
			res, err := sim.Run(cfg, sim.NewSeeded(seed), lockProgram, lockProgram, lockProgram)
			if err != nil {
				t.Fatal(err)
			}
			if res.Err != nil {
				t.Fatalf("%+v seed %d: %v", f, seed, res.Err)
			}
		}
	}
	if seen[true] == 0 || seen[false] == 0 {
		t.Fatalf("only one answer seen: %v", seen)
	}
}
