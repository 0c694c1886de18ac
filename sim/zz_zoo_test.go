package sim_test

import (
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/zksim/zksim/lock/zoo"
	"github.com/zksim/zksim/sim"
)

func TestZooProbe(t *testing.T) {
	for _, ex := range zoo.Exhibits() {
		var found []int
		for start := range 20 {
			n := 0
			for s := 0; s < 1000; s++ {
				n++
				seed := uint64(start*1000 + s)
				rep, err := sim.RunWorkload(sim.Config{Faults: allFaults, Server: fakezkFollowers(seed)}, sim.NewSeeded(seed),
					sim.Workload{Recipe: ex.Recipe, ReadPercent: 50, TimeoutTicks: 12})
				if err != nil {
					t.Fatal(err)
				}
				if slices.Contains(rep.Classes(), string(ex.Violation)) {
					break
				}
			}
			found = append(found, n)
		}
		sort.Ints(found)
		fmt.Printf("%-18s %-18s median %4d p95 %4d\n", ex.Recipe.Name, ex.Violation, found[len(found)/2], found[len(found)*95/100])
	}
}
