package sim_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/sim"
)

// TestEventCache_MatchesClients: the scheduler's cached events (what each
// client can do, its faults, who is live) are what the clients have at
// every step: under every fault, with a follower, under PCT and in Flat
// mode, with sleeps, deadlines, watches, lost sessions and crashes. A
// client changed with no touch would change schedules silently.
func TestEventCache_MatchesClients(t *testing.T) {
	configs := map[string]sim.Config{
		"walk":     {Faults: everyFault},
		"follower": {Faults: everyFault, Server: fakezk.Config{Followers: 1}},
		"pct":      {Faults: everyFault, PCT: true},
		"flat":     {Faults: everyFault, Flat: true},
		"closer":   {Faults: sim.Faults{None: true}},
	}
	steps := 0
	for name, cfg := range configs {
		for seed := range uint64(20) {
			cfg.NoTrace = true
			cfg.Observe = func(s *sim.Sim, step int, _ sim.Event) error {
				steps++
				return sim.CheckEvents(s)
			}
			programs := []sim.Program{lockProgram, lockProgram, lockProgram}
			if name == "closer" { // one client ends another's session mid-run
				programs = append(programs, func(ctx context.Context, c *sim.Client) error {
					c.Sleep(ctx, 1)
					return c.Sim().Clients()[0].Conn().Close()
				})
			}
			res, err := sim.Run(cfg, sim.NewSeeded(seed), programs...)
			if err != nil {
				t.Fatal(err)
			}
			if res.Err != nil {
				t.Fatalf("%s seed %d: %v", name, seed, res.Err)
			}
		}
	}
	if steps < 1000 {
		t.Fatalf("only %d steps checked", steps)
	}
}

// TestEventCache_CheckFails: the check the test above relies on finds a
// client whose cached events are wrong, and a wrong set of the faults
// with budget left.
func TestEventCache_CheckFails(t *testing.T) {
	cfg := sim.Config{NoTrace: true}
	cfg.Observe = func(s *sim.Sim, step int, _ sim.Event) error {
		if step == 5 {
			sim.SpoilEvents(s, 1)
			if err := sim.CheckEvents(s); err == nil || !strings.Contains(err.Error(), "c2's cached events") {
				return fmt.Errorf("a spoilt entry checked as %v", err)
			}
			sim.SpoilEvents(s, 1) // back as it was
			sim.SpoilBudget(s)
			if err := sim.CheckEvents(s); err == nil || !strings.Contains(err.Error(), "faults with budget") {
				return fmt.Errorf("a spoilt budget checked as %v", err)
			}
			sim.SpoilBudget(s)
		}
		return nil
	}
	res, err := sim.Run(cfg, sim.NewSeeded(1), lockProgram, lockProgram)
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil {
		t.Fatal(res.Err)
	}
}
