package sim_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/simhook"
	"github.com/zksim/zksim/sim"
)

// TestConfigValidate_Refuses: each setting out of its range is refused
// with ErrConfig and a message naming the field, its value and its range.
func TestConfigValidate_Refuses(t *testing.T) {
	for _, tc := range []struct {
		cfg  sim.Config
		want string
	}{
		{sim.Config{Faults: sim.Faults{Percent: 500, LoseReply: -3}}, "sim: invalid config: Faults.Percent is 500, want 0..100"},
		{sim.Config{Faults: sim.Faults{Percent: -1}}, "Faults.Percent is -1, want 0..100"},
		{sim.Config{Faults: sim.Faults{LoseReply: -3}}, "Faults.LoseReply is -3, want 0 or more"},
		{sim.Config{Faults: sim.Faults{PauseTicks: -2}}, "Faults.PauseTicks is -2, want 0 or more (0: twice the session timeout)"},
		{sim.Config{SessionTimeoutMs: -5}, "SessionTimeoutMs is -5, want 0 or more"},
		{sim.Config{Server: fakezk.Config{TickMillis: -1}}, "Server.TickMillis is -1, want 0 or more"},
		{sim.Config{Server: fakezk.Config{Followers: 1000}}, "Server.Followers is 1000, want 0..6"},
		{sim.Config{TickPercent: 101}, "TickPercent is 101, want 0..100 (0: 5)"},
		{sim.Config{MaxSteps: -1}, "MaxSteps is -1, want 0..1000000"},
		{sim.Config{MaxSteps: 2_000_000_000}, "MaxSteps is 2000000000, want 0..1000000"},
		{sim.Config{DeadlockTicks: -4}, "DeadlockTicks is -4, want 0 or more"},
		{sim.Config{Faults: sim.Faults{Crash: 1 << 40}}, "Faults.Crash is 1099511627776, want 0..2147483647"},
		{sim.Config{PCT: true, PCTDepth: 1 << 30}, "PCTDepth is 1073741824, want 0..100 (0: 3)"},
		{sim.Config{PCTHorizon: -1}, "PCTHorizon is -1, want 0..1000000 (0: 400)"},
		{sim.Config{TickBudget: -2}, "TickBudget is -2, want -1 or more (-1: no bound)"},
		{sim.Config{SpinRequests: -2}, "SpinRequests is -2, want -1 or more (0: 16; -1: never)"},
	} {
		err := tc.cfg.Validate()
		if !errors.Is(err, sim.ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want ErrConfig with %q", tc.cfg, err, tc.want)
		}
	}
}

// TestConfigValidate_Accepts: the zero value, the defaults filled in, and
// every range's ends are valid.
func TestConfigValidate_Accepts(t *testing.T) {
	every := sim.Faults{Percent: 100, LoseRequest: 1 << 20, LoseReply: 2, Disconnect: 2, Crash: 1, Pause: 1, PauseTicks: 500, Reap: 1, Reorder: 1, Abandon: 1}
	for _, cfg := range []sim.Config{
		{},
		sim.Config{}.WithDefaults(),
		{Faults: every, TickPercent: 100, MaxSteps: sim.MaxSteps, PCT: true, PCTDepth: sim.MaxPCTDepth, SessionTimeoutMs: 100000,
			Server: fakezk.Config{Followers: sim.MaxFollowers}},
	} {
		if err := cfg.Validate(); err != nil {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
}

// TestConfigValidate_NamesEachBudget: a negative budget of each fault
// kind is refused under the name of the Faults field that holds it.
func TestConfigValidate_NamesEachBudget(t *testing.T) {
	for _, k := range simhook.FaultKinds() {
		var cfg sim.Config
		*k.Budget(&cfg.Faults) = -1
		v := reflect.ValueOf(&cfg.Faults).Elem()
		field := ""
		for i := range v.NumField() {
			if v.Field(i).Addr().Interface() == k.Budget(&cfg.Faults) {
				field = v.Type().Field(i).Name
			}
		}
		err := cfg.Validate()
		if want := "Faults." + field + " is -1"; field == "" || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", k.Name, err, want)
		}
	}
}

// TestRun_RefusesBadInputs: Run refuses a bad Config and a bad set of
// programs before any program runs.
func TestRun_RefusesBadInputs(t *testing.T) {
	ran := 0
	prog := func(ctx context.Context, c *sim.Client) error { ran++; return nil }
	many := make([]sim.Program, sim.MaxClients+1)
	for i := range many {
		many[i] = prog
	}
	for _, tc := range []struct {
		name     string
		cfg      sim.Config
		programs []sim.Program
		want     string
	}{
		{"faults", sim.Config{Faults: sim.Faults{Percent: 500}}, []sim.Program{prog}, "Faults.Percent is 500, want 0..100"},
		{"none", sim.Config{}, nil, "0 programs, want 1..64"},
		{"too many", sim.Config{}, many, "65 programs, want 1..64"},
		{"nil", sim.Config{}, []sim.Program{prog, nil}, "program 1 (client c2) is nil"},
	} {
		res, err := sim.Run(tc.cfg, sim.NewSeeded(1), tc.programs...)
		if res != nil || !errors.Is(err, sim.ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, %v; want ErrConfig with %q", tc.name, res, err, tc.want)
		}
	}
	if ran > 0 {
		t.Errorf("%d programs ran", ran)
	}
	if _, err := sim.New(sim.Config{MaxSteps: -1}, sim.NewSeeded(1)); !errors.Is(err, sim.ErrConfig) {
		t.Errorf("New: got %v, want ErrConfig", err)
	}
}

// TestBoundsValidate_Refuses: each bound out of its range is refused with
// ErrBounds and a message naming it and its range.
func TestBoundsValidate_Refuses(t *testing.T) {
	for _, tc := range []struct {
		b    sim.Bounds
		want string
	}{
		{sim.Bounds{Deviations: -2, Depth: 5}, "Deviations is -2, want -1 or more (-1: no bound)"},
		{sim.Bounds{Depth: -1}, "Depth is -1, want 0 or more"},
		{sim.Bounds{Ticks: -1}, "Ticks is -1, want 0 or more"},
		{sim.Bounds{MaxStates: -1}, "MaxStates is -1, want 0 or more"},
		{sim.Bounds{Budget: -1}, "Budget is -1, want 0 or more"},
		{sim.Bounds{Parallel: 1 << 20}, "Parallel is 1048576, want 0..1024 (0: 1)"},
		{sim.Bounds{Shards: -1}, "Shards is -1, want 0 or more"},
		{sim.Bounds{Shard: 3, Shards: 3}, "Shard is 3, want 0..2 (Shard of Shards)"},
		{sim.Bounds{Shard: 1}, "Shard is 1, want 0..0"},
		{sim.Bounds{Deviations: -1}, "deepening needs a Depth of 1 or more, or NoDeepening"},
	} {
		err := tc.b.Validate()
		if !errors.Is(err, sim.ErrBounds) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want ErrBounds with %q", tc.b, err, tc.want)
		}
	}
	for _, b := range []sim.Bounds{{}, {Deviations: -1, Depth: 3}, {Deviations: -1, NoDeepening: true}, {Shard: 2, Shards: 3, Parallel: sim.MaxParallel}} {
		if err := b.Validate(); err != nil {
			t.Errorf("%+v: %v", b, err)
		}
	}
}

// badScenario is a Scenario that refuses itself; its Start must never run.
type badScenario struct{ t *testing.T }

var errBadScenario = errors.New("bad scenario")

func (b badScenario) Validate() error { return errBadScenario }

func (b badScenario) Start(*sim.Sim) ([]sim.Program, sim.Judge) {
	b.t.Fatal("Start ran")
	return nil, nil
}

// TestExplore_RefusesBadInputs: Explore refuses bad bounds, a bad Config
// and a scenario whose Validate refuses it, before its first schedule.
func TestExplore_RefusesBadInputs(t *testing.T) {
	sc := badScenario{t}
	for _, tc := range []struct {
		cfg  sim.Config
		b    sim.Bounds
		want error
	}{
		{sim.Config{}, sim.Bounds{Ticks: -1}, sim.ErrBounds},
		{sim.Config{Faults: sim.Faults{Crash: -1}}, sim.Bounds{}, sim.ErrConfig},
		{sim.Config{}, sim.Bounds{}, errBadScenario},
	} {
		if _, err := sim.Explore(context.Background(), tc.cfg, sc, tc.b); !errors.Is(err, tc.want) {
			t.Errorf("%+v %+v: got %v, want %v", tc.cfg, tc.b, err, tc.want)
		}
	}
}
