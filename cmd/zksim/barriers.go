package main

import (
	"fmt"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/simcli"
	"github.com/zksim/zksim/zoo"
)

// addBarriers gives c the barrier recipes: the good double barrier
// ("barrier"), the good single barrier ("barrier/single") and the
// barrier zoo's broken ones (barrier/zoo/...).
func addBarriers(c *simcli.CLI) {
	single := zoo.DoubleBarrier()
	single.Name = "barrier/single"
	c.Subjects = append(c.Subjects, harness.Barrier(zoo.DoubleBarrier(), harness.BarrierWorkload{}),
		harness.Barrier(single, harness.BarrierWorkload{Single: true}))
	c.Docs["barrier"] = "double barrier: each round, enter when all clients arrived, leave when all left (zksim's barrier.DoubleBarrier)"
	c.Docs["barrier/single"] = "single barrier: one client raises it, works and lowers it; the others wait (zksim's barrier.Barrier)"
	for _, ex := range zoo.Barriers() {
		c.Subjects = append(c.Subjects, harness.Barrier(ex.Barrier, harness.BarrierWorkload{Single: ex.Single}))
		c.Docs[ex.Name] = fmt.Sprintf("BROKEN (%s): %s", ex.Violation, firstSentence(ex.Bug))
	}
}
