package harnesstest_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"testing"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/harness/harnesstest"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zoo"
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

// zksim's own lock, wrapped as a user's recipe, passes Check with
// its zero options (every legal fault kind): no false alarm.
func TestCheck_UserRecipe(t *testing.T) {
	harnesstest.Check(t, harness.Lock(myRecipe, harness.Workload{}), harnesstest.Options{})
}

// zksim's read/write lock passes Check with every legal fault.
func TestCheck_RWLock(t *testing.T) {
	harnesstest.Check(t, harness.Lock(zoo.RWMutex(), harness.Workload{}), harnesstest.Options{})
}

// elect is a leader election: each client joins with an ephemeral
// sequential node and leads when its node is the lowest; it watches only
// the node just before its own. (Its first version returned on a
// connection loss without closing its session; ExampleRun found the
// deadlock that its node left behind in 13 of 200 schedules. Its second
// returned a delete's connection loss as an error: Check found that once it
// drew faults on every step, not only in a short drawn prefix.)
func elect(leaders map[int64]bool) sim.Program {
	return func(ctx context.Context, c *sim.Client) error {
		conn := c.Conn()
		defer conn.Close() // whatever happens, our node goes with the session
		conn.Create(ctx, "/election", nil, zkapi.Persistent)
		me, err := conn.Create(ctx, "/election/n-", nil, zkapi.EphemeralSequential)
		if err != nil {
			return nil // connection trouble: this client sits the election out
		}
		for {
			kids, _, err := conn.Children(ctx, "/election")
			if err != nil {
				return nil
			}
			sort.Strings(kids)
			i := sort.SearchStrings(kids, me[len("/election/"):])
			if i == len(kids) || "/election/"+kids[i] != me {
				return nil // our node is gone: our session ended
			}
			if i == 0 {
				leaders[conn.Session().ID] = true
				c.Sleep(ctx, 2)
				delete(leaders, conn.Session().ID)
				conn.Delete(ctx, me, -1) // if this fails, Close removes the node with the session
				return nil
			}
			_, _, w, err := conn.GetW(ctx, "/election/"+kids[i-1])
			if errors.Is(err, zkapi.ErrNoNode) {
				continue
			}
			if err != nil {
				return nil
			}
			w.Wait(ctx)
		}
	}
}

// The harness is not lock-only: any client programs run against
// simulated conns with the same faults, and an invariant is checked after
// every step. In a test, harnesstest.Check(t, harness.Programs(invariant, programs...), opts) draws
// the schedules with rapid and shrinks failures.
func Example_programs() {
	leaders := map[int64]bool{}
	invariant := oneLiveLeader(leaders)
	atMostOneLiveLeader := func(s *sim.Sim, _ int, _ sim.Event) error { return invariant(s) }
	violations := 0
	for seed := range uint64(200) {
		clear(leaders)
		p := elect(leaders)
		res, _ := sim.Run(sim.Config{Observe: atMostOneLiveLeader, Faults: sim.Faults{Percent: 5, Disconnect: 2, Crash: 1}},
			sim.NewSeeded(seed), p, p, p, p)
		if res.Err != nil || res.Deadlock {
			violations++
		}
	}
	fmt.Println("schedules violating the invariant:", violations)
	// Output: schedules violating the invariant: 0
}

// oneLiveLeader is the election's invariant: at most one of the leaders
// has a live session.
func oneLiveLeader(leaders map[int64]bool) func(*sim.Sim) error {
	return func(s *sim.Sim) error {
		live := 0
		for id := range leaders {
			if s.State().Alive(id) {
				live++
			}
		}
		if live > 1 {
			return fmt.Errorf("%d live leaders", live)
		}
		return nil
	}
}

// The leader election under rapid: drawn and shrunk schedules, with the
// invariant checked after every step.
func TestCheck_LeaderElection(t *testing.T) {
	leaders := map[int64]bool{}
	p := elect(leaders)
	cfg := sim.Config{
		Setup:  func() { clear(leaders) },
		Faults: sim.Faults{Percent: 5, Disconnect: 2, Crash: 1, LoseReply: 1},
	}
	harnesstest.Check(t, harness.Programs(oneLiveLeader(leaders), p, p, p), harnesstest.Options{Config: cfg})
}
