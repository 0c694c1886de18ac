package harness_test

import (
	"testing"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/longtest"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// barrierFaults is every legal fault kind, as the lock workload's
// allFaults, with an abandoned session: a member's node that lingers.
var barrierFaults = sim.Faults{Percent: 10, LoseRequest: 2, LoseReply: 2, Disconnect: 2, Crash: 1, Pause: 1, Reap: 1, Abandon: 1}

// barrierConfig is the configuration of a faulted barrier schedule:
// every legal fault kind, with a follower on odd seeds, PCT or a random
// walk. A crashed member stops its barrier for good (the others wait in
// Enter, excused), so only one seed in three may crash a client: the
// others go through every round.
func barrierConfig(seed uint64, pct bool) sim.Config {
	f := barrierFaults
	if seed%3 != 0 {
		f.Crash = 0
	}
	return sim.Config{Faults: f, Server: fakezkFollowers(seed), PCT: pct, NoTrace: true}
}

// The good barriers pass faulted schedules, random-walk and PCT, double
// and single.
func TestBarrierWorkload_GoodSeeded(t *testing.T) {
	for _, single := range []bool{false, true} {
		for _, pct := range []bool{false, true} {
			for seed := range uint64(300) {
				cfg := barrierConfig(seed, pct)
				w := harness.Barrier(zoo.DoubleBarrier(), harness.BarrierWorkload{Single: single})
				rep, err := harness.Run(cfg, sim.NewSeeded(seed), w)
				if err != nil {
					t.Fatal(err)
				}
				if !rep.OK() {
					cfg.NoTrace = false
					rep, _ = harness.Run(cfg, sim.NewSeeded(seed), w)
					t.Fatalf("single %v pct %v seed %d: %v\n%s", single, pct, seed, rep.Violations, sim.TraceString(rep.Result.Trace))
				}
			}
		}
	}
}

// The systematic search exhausts the good double barrier's small
// workloads under one fault of each kind. A long test (700,000 states,
// ten minutes under -race); TestBarrierExplore_GoodExhaustsSmallest is
// its sibling in the normal suite, and BenchmarkBarrierExhaust measures
// the same bounds.
func TestBarrierExplore_GoodExhausts(t *testing.T) {
	longtest.Skip(t)
	testBarrierExhausts(t, []barrierBounds{
		{harness.BarrierWorkload{Clients: 2, Rounds: 1}, sim.Bounds{Deviations: 1}},
		{harness.BarrierWorkload{Clients: 2, Rounds: 2}, sim.Bounds{Deviations: 1}},
		{harness.BarrierWorkload{Clients: 3, Rounds: 1}, sim.Bounds{Deviations: 1}},
		{harness.BarrierWorkload{Clients: 3, Single: true}, sim.Bounds{Deviations: 2}},
	})
}

// The normal suite's share of TestBarrierExplore_GoodExhausts: the
// smallest double barrier and single barrier that meet a fault (one
// deviation), about 43,000 states.
func TestBarrierExplore_GoodExhaustsSmallest(t *testing.T) {
	testBarrierExhausts(t, []barrierBounds{
		{harness.BarrierWorkload{Clients: 2, Rounds: 1}, sim.Bounds{Deviations: 1}},
		{harness.BarrierWorkload{Clients: 3, Single: true}, sim.Bounds{Deviations: 1}},
	})
}

// barrierBounds is a barrier workload and the bounds it is searched in.
type barrierBounds struct {
	w harness.BarrierWorkload
	b sim.Bounds
}

// testBarrierExhausts searches the good double barrier in each case and
// wants it exhausted clean.
func testBarrierExhausts(t *testing.T, cases []barrierBounds) {
	for _, tc := range cases {
		w := harness.Barrier(zoo.DoubleBarrier(), tc.w)
		res, err := sim.Explore(t.Context(), sim.Config{Faults: exploreFaults}, harness.AsScenario(w), tc.b)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure != nil || !res.Exhausted {
			t.Fatalf("%+v: %s: %+v", tc.w, res.Coverage(), res.Failure)
		}
		t.Logf("%d clients x %d rounds single %v: %s", tc.w.Clients, tc.w.Rounds, tc.w.Single, res.Coverage())
	}
}
