package sim_test

import (
	"testing"

	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/rwlock"
	"github.com/zksim/zksim/sim"
)

var allFaults = sim.Faults{Percent: 10, LoseRequest: 2, LoseReply: 2, Disconnect: 2, Crash: 1, Pause: 1, Reap: 1}

func TestWorkload_GoodLockSeeded(t *testing.T) {
	for _, recipe := range []lock.Recipe{lock.MutexRecipe(), rwlock.Recipe()} {
		for seed := range uint64(300) {
			rep, err := sim.RunWorkload(sim.Config{Faults: allFaults, Server: fakezkFollowers(seed)}, sim.NewSeeded(seed),
				sim.Workload{Recipe: recipe, ReadPercent: 50, TimeoutTicks: 30})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.OK() {
				t.Fatalf("%s seed %d: %v\n%s", recipe.Name, seed, rep.Violations, sim.TraceString(rep.Result.Trace))
			}
		}
	}
}

// Found by this harness (seed 7): a client paused before sending its create
// learns on reconnect that its session expired, and its queued create runs
// on the new session, as go-zookeeper does. The lock took the old session
// id for the node's owner, judged the lease lost, and left the node behind
// as an orphan. internal/queue.Join now asks the node for its owner when
// the session changed under the create.
func TestWorkload_Regression_SessionReplacedUnderCreate(t *testing.T) {
	rep, err := sim.RunWorkload(sim.Config{Faults: allFaults, Server: fakezkFollowers(7)}, sim.NewSeeded(7),
		sim.Workload{Recipe: lock.MutexRecipe(), ReadPercent: 50, TimeoutTicks: 30})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("%v", rep.Violations)
	}
	if rep.Result.Faults[sim.Pause] == 0 {
		t.Fatal("the schedule no longer pauses a client: the regression is not exercised")
	}
}

func TestWorkload_GoodLockPCT(t *testing.T) {
	for seed := range uint64(200) {
		rep, err := sim.RunWorkload(sim.Config{PCT: true, Faults: allFaults}, sim.NewSeeded(seed),
			sim.Workload{Recipe: rwlock.Recipe(), ReadPercent: 50})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.OK() {
			t.Fatalf("seed %d: %v\n%s", seed, rep.Violations, sim.TraceString(rep.Result.Trace))
		}
	}
}
