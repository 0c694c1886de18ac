package sim_test

import (
	"context"
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zkapi"
)

// timerScenario: c1 creates /a then /b, two requests; c2 waits for a
// deadline of 3 ticks, then creates /late. Its invariant breaks when the
// deadline fires while c1 is between its two requests: /late beside /a
// without /b. Its judge sees nothing (Visible is constant), so sleep sets
// decide by the data alone.
type timerScenario struct{}

func (timerScenario) Start(s *sim.Sim) ([]sim.Program, sim.Judge) {
	c1 := func(ctx context.Context, c *sim.Client) error {
		if _, err := c.Conn().Create(ctx, "/a", nil, zkapi.Persistent); err != nil {
			return err
		}
		_, err := c.Conn().Create(ctx, "/b", nil, zkapi.Persistent)
		return err
	}
	c2 := func(ctx context.Context, c *sim.Client) error {
		dctx, cancel := c.WithTimeout(ctx, 3)
		defer cancel()
		if err := c.Sleep(dctx, 100); err == nil {
			return nil // the deadline never came
		}
		_, err := c.Conn().Create(ctx, "/late", nil, zkapi.Persistent)
		return err
	}
	return []sim.Program{c1, c2}, timerJudge{}
}

type timerJudge struct{}

func (timerJudge) Invariant(s *sim.Sim) *check.Violation {
	has := func(p string) bool { _, _, ok := s.State().Node(p); return ok }
	if has("/late") && has("/a") && !has("/b") {
		return &check.Violation{Class: check.Invariant, Detail: "the deadline fired between c1's requests"}
	}
	return nil
}

func (timerJudge) Visible() int { return 0 }

func (timerJudge) Verdict(res *sim.Result) []check.Class { return nil }

// A timer can fire between any two events: the search finds the deadline
// firing between c1's two requests at 3 deviations (an early tick, and
// c2's wake-up and send run ahead of c1's send), with sleep sets too (no deviation bound: a tick
// commutes with nothing, so it is never skipped), and not in the model
// without early ticks, which exhausts the same bounds.
func TestExplore_TimerFiresBetweenRequests(t *testing.T) {
	for _, tc := range []struct {
		name  string
		b     sim.Bounds
		found bool
	}{
		{"deviations", sim.Bounds{Deviations: 3}, true},
		{"sleep sets", sim.Bounds{Deviations: -1, Depth: 12}, true},
		{"no early ticks", sim.Bounds{Deviations: 3, NoEarlyTicks: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := sim.Explore(t.Context(), sim.Config{}, timerScenario{}, tc.b)
			if err != nil {
				t.Fatal(err)
			}
			found := res.Failure != nil && res.Failure.Class == check.Invariant
			if found != tc.found {
				t.Fatalf("found %v, want %v: %s", found, tc.found, res.Coverage())
			}
			if !found && !res.Exhausted {
				t.Fatalf("not exhausted: %s", res.Coverage())
			}
		})
	}
}

// The coverage line states the time bound with the others.
func TestExploration_CoverageStatesTheTimeBound(t *testing.T) {
	for _, tc := range []struct {
		b    sim.Bounds
		want string
	}{
		{sim.Bounds{Deviations: 1}, "timers fire between any two events (an early tick: 1 deviation)"},
		{sim.Bounds{Deviations: 1, Ticks: 3}, "early ticks <= 3"},
		{sim.Bounds{Deviations: -1, Depth: 4}, "early ticks <= 2"},
		{sim.Bounds{Deviations: 1, NoEarlyTicks: true}, "no early ticks"},
	} {
		res, err := sim.Explore(t.Context(), sim.Config{}, timerScenario{}, tc.b)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Coverage(); !strings.Contains(got, tc.want) {
			t.Errorf("%+v: coverage %q, want it to say %q", tc.b, got, tc.want)
		}
	}
}
