package harness_test

import (
	"context"
	"fmt"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zkapi"
)

// myRecipe is a user's own lock recipe, given as functions over
// zkapi.Conn; here it wraps lock.Mutex with the holder's data.
var myRecipe = recipe.Lock{
	Name: "mine",
	Acquire: func(ctx context.Context, c zkapi.Conn, dir, id string) (recipe.Held, error) {
		m, err := lock.New(c, dir, lock.Options{ID: id, Data: []byte(id)})
		if err != nil {
			return nil, err
		}
		return m.Acquire(ctx)
	},
}

// In a user's _test.go, one call checks a recipe under rapid-drawn,
// shrinking schedules with every fault (the zero options' default):
//
//	func TestMyLock(t *testing.T) {
//		harnesstest.Check(t, harness.Lock(myRecipe, harness.Workload{}), harnesstest.Options{})
//	}
//
// The same check with a seeded chooser, for a fixed number of schedules:
func ExampleRun() {
	faults := sim.Faults{Percent: 10, LoseRequest: 2, LoseReply: 2, Disconnect: 2, Crash: 1, Pause: 1}
	bad := 0
	for seed := range uint64(100) {
		rep, _ := harness.Run(sim.Config{Faults: faults}, sim.NewSeeded(seed), harness.Lock(myRecipe, harness.Workload{}))
		if !rep.OK() {
			bad++
		}
	}
	fmt.Println("schedules with violations:", bad)
	// Output: schedules with violations: 0
}
