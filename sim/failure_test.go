package sim_test

import (
	"slices"
	"testing"

	"github.com/zksim/zksim/sim"
)

// A search's Failure carries the configuration its decisions replay
// under (the search's own: Flat), so that Replay of its decisions shows
// the same violation again, traced.
func TestExplore_FailureReplaysUnderItsConfig(t *testing.T) {
	sc := counterScenario{clients: 2}
	res, err := sim.Explore(t.Context(), sim.Config{}, sc, sim.Bounds{Deviations: 2})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Failure
	if f == nil {
		t.Fatalf("no lost update found: %s", res.Coverage())
	}
	if !f.Config.Flat || f.Config.NoTrace {
		t.Fatalf("failure's config: Flat %v, NoTrace %v; want the search's, traced", f.Config.Flat, f.Config.NoTrace)
	}
	s, err := sim.New(f.Config, sim.Replay(f.Decisions))
	if err != nil {
		t.Fatal(err)
	}
	programs, judge := sc.Start(s)
	if got := judge.Verdict(s.Run(programs...)); !slices.Contains(got, f.Class) {
		t.Errorf("replayed %v: verdict %v, want %s", f.Decisions, got, f.Class)
	}
}
