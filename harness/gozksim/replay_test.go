package gozksim_test

import (
	"testing"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/harness/gozksim"
	"github.com/zksim/zksim/sim"
)

// Every schedule of go-zookeeper's Lock under every default fault, on
// one server and on three, runs again to the same trace, line for line.
func TestLock_RunsReplay(t *testing.T) {
	for _, followers := range []int{0, 2} {
		w := gozksim.Lock(t, "gozk", goZKLock, harness.Workload{Clients: 3, Acquisitions: 2})
		cfg := sim.Config{Faults: sim.DefaultFaults()}
		cfg.Server.Followers = followers
		for seed := uint64(1); seed <= 100; seed++ {
			var decisions []int
			first, err := harness.Run(cfg, sim.Record(sim.NewSeeded(seed), &decisions), w)
			if err != nil {
				t.Fatal(err)
			}
			again, err := harness.Run(cfg, sim.Replay(decisions), w)
			if err != nil {
				t.Fatal(err)
			}
			a, b := first.Result.Trace, again.Result.Trace
			for i := range min(len(a), len(b)) {
				if a[i] != b[i] {
					t.Fatalf("followers %d, seed %d: line %d differs:\n%s\n%s", followers, seed, i+1, a[i], b[i])
				}
			}
			if len(a) != len(b) {
				t.Fatalf("followers %d, seed %d: %d lines, then %d", followers, seed, len(a), len(b))
			}
		}
	}
}
