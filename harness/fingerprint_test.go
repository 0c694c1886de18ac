package harness_test

import (
	"fmt"
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// A Machine's fingerprint keeps its nodes' hashes and rehashes only the
// nodes changed since the last one: a change it missed would make two
// states hash alike, and a search skip one of them while claiming it
// exhausted the space. So across random walks of every recipe (the
// zoo's broken ones too, which make other changes), with every fault,
// followers, containers reaped, multis, and fingerprints taken at
// irregular steps (so that several steps' changes pile up between two),
// the kept fingerprint must be the one hashed from scratch.
func TestFingerprint_KeptIsFresh(t *testing.T) {
	recipes := exploreRecipes()
	for _, ex := range zoo.Locks() {
		recipes = append(recipes, ex.Recipe)
	}
	faults := sim.DefaultFaults()
	faults.Percent = 20
	checked := 0
	for _, r := range recipes {
		for seed := range uint64(16) {
			w := harness.Lock(r, harness.Workload{Clients: 3, Acquisitions: 2, ReadPercent: 50,
				TimeoutTicks: int(seed % 3), HoldTicks: 1 + int(seed%2)})
			cfg := sim.Config{Faults: faults, Server: fakezk.Config{Seed: seed, Followers: int(seed % 3),
				ContainerCheckTicks: 1 + int(seed%2)}, NoTrace: true}
			cfg.Observe = func(s *sim.Sim, step int, _ sim.Event) error {
				if (step*int(seed+7))%5 > 1 { // about two steps in five
					return nil
				}
				m := s.State().(*machine.Machine)
				checked++
				if kept, fresh := m.Fingerprint(), m.FingerprintFresh(); kept != fresh {
					return fmt.Errorf("step %d: kept fingerprint %x, fresh %x", step, kept, fresh)
				}
				return nil
			}
			s, err := sim.New(cfg, sim.NewSeeded(seed))
			if err != nil {
				t.Fatal(err)
			}
			programs, _ := harness.AsScenario(w).Start(s)
			if res := s.Run(programs...); res.Err != nil {
				t.Fatalf("%s seed %d: %v", r.Name, seed, res.Err)
			}
		}
	}
	t.Logf("%d fingerprints checked", checked)
	if checked < 1000 {
		t.Fatalf("only %d fingerprints checked", checked)
	}
}
