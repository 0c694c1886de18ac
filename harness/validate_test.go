package harness_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/harness/harnesstest"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// TestWorkloadValidate_Refuses: every entry point that runs the lock
// workload (RunWorkload, Explore, Validate) refuses a setting out of its
// range with ErrWorkload and a message naming the field and the range,
// before any schedule runs (Clients -2 used to panic in makeslice,
// 100000 to run for minutes, a nil Acquire to be reported as the
// violation "client-error: c1 panicked").
func TestWorkloadValidate_Refuses(t *testing.T) {
	good := zoo.Mutex()
	for _, tc := range []struct {
		w    harness.Workload
		want string
	}{
		{harness.Workload{Recipe: good, Clients: -2}, "harness: invalid workload: Workload.Clients is -2, want 0..64 (0: 5)"},
		{harness.Workload{Recipe: good, Clients: 100000}, "Workload.Clients is 100000, want 0..64"},
		{harness.Workload{Recipe: good, Acquisitions: -1}, "Workload.Acquisitions is -1, want 0..100 (0: 3)"},
		{harness.Workload{Recipe: good, Acquisitions: 101}, "Workload.Acquisitions is 101, want 0..100"},
		{harness.Workload{Recipe: good, HoldTicks: -1}, "Workload.HoldTicks is -1, want 0 or more"},
		{harness.Workload{Recipe: good, ReadPercent: 150}, "Workload.ReadPercent is 150, want 0..100"},
		{harness.Workload{Recipe: good, TimeoutTicks: -12}, "Workload.TimeoutTicks is -12, want 0 or more"},
		{harness.Workload{Recipe: good, TimeoutTicks: 1 << 40}, "Workload.TimeoutTicks is 1099511627776, want 0..2147483647"},
		{harness.Workload{Recipe: good, TimeoutPercent: -1}, "Workload.TimeoutPercent is -1, want 0..100"},
		{harness.Workload{Recipe: good, SequenceStart: -5}, "Workload.SequenceStart is -5, want 0 or more"},
		{harness.Workload{Recipe: good, Dir: "locks"}, `Workload.Dir is "locks", want an absolute path other than /`},
		{harness.Workload{Recipe: good, Dir: "/"}, `Workload.Dir is "/", want an absolute path other than /`},
		{harness.Workload{Recipe: good, Dir: "/locks/"}, `Workload.Dir is "/locks/", want a path without empty`},
		{harness.Workload{Recipe: recipe.Lock{Name: "mine"}}, "lock: invalid configuration: recipe mine: Recipe.Acquire is nil"},
		{harness.Workload{Recipe: recipe.Lock{Acquire: good.Acquire}}, `Recipe.Name is "", want a name without spaces`},
	} {
		checks := map[string]func() error{
			"RunWorkload": func() error {
				_, err := harness.Run(sim.Config{}, sim.NewSeeded(1), tc.w)
				return err
			},
			"Explore": func() error {
				_, err := harness.Explore(context.Background(), sim.Config{}, tc.w, sim.Bounds{})
				return err
			},
			"sim.Explore": func() error {
				_, err := sim.Explore(context.Background(), sim.Config{}, harness.AsScenario(tc.w), sim.Bounds{})
				return err
			},
			"Validate": func() error { return harness.Validate(sim.Config{}, tc.w) },
		}
		for name, run := range checks {
			if err := run(); !errors.Is(err, harness.ErrWorkload) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s(%+v): got %v, want ErrWorkload with %q", name, tc.w, err, tc.want)
			}
		}
	}
}

// TestWorkloadValidate_BadConfig: a bad sim.Config is refused by the
// harness's entry points with sim.ErrConfig.
func TestWorkloadValidate_BadConfig(t *testing.T) {
	cfg := sim.Config{Faults: sim.Faults{Percent: 500, LoseReply: -3}}
	w := harness.Workload{Recipe: zoo.Mutex()}
	if _, err := harness.Run(cfg, sim.NewSeeded(1), w); !errors.Is(err, sim.ErrConfig) {
		t.Errorf("RunWorkload: got %v, want sim.ErrConfig", err)
	}
	if err := harness.Validate(cfg, w); !errors.Is(err, sim.ErrConfig) || !strings.Contains(err.Error(), "Faults.Percent is 500, want 0..100") {
		t.Errorf("Validate: got %v", err)
	}
	if _, err := harness.Run(cfg, sim.NewSeeded(1), harness.BarrierWorkload{Recipe: zoo.DoubleBarrier()}); !errors.Is(err, sim.ErrConfig) {
		t.Errorf("RunBarrier: got %v, want sim.ErrConfig", err)
	}
}

// TestBarrierWorkloadValidate_Refuses: the barrier workload's entry
// points refuse a setting out of its range, and a recipe without what
// the workload runs.
func TestBarrierWorkloadValidate_Refuses(t *testing.T) {
	good := zoo.DoubleBarrier()
	noSingle := good
	noSingle.Single = nil
	noEnter := good
	noEnter.Enter = nil
	for _, tc := range []struct {
		w    harness.BarrierWorkload
		want string
	}{
		{harness.BarrierWorkload{Recipe: good, Clients: -1}, "BarrierWorkload.Clients is -1, want 0..64 (0: 3)"},
		{harness.BarrierWorkload{Recipe: good, Clients: 65}, "BarrierWorkload.Clients is 65, want 0..64"},
		{harness.BarrierWorkload{Recipe: good, Rounds: -1}, "BarrierWorkload.Rounds is -1, want 0..100 (0: 2)"},
		{harness.BarrierWorkload{Recipe: good, WorkTicks: -1}, "BarrierWorkload.WorkTicks is -1, want 0 or more"},
		{harness.BarrierWorkload{Recipe: good, Attempts: 1000}, "BarrierWorkload.Attempts is 1000, want 0..100 (0: 2)"},
		{harness.BarrierWorkload{Recipe: good, LatePercent: -2}, "BarrierWorkload.LatePercent is -2, want -1..100 (0: 50, -1: none)"},
		{harness.BarrierWorkload{Recipe: good, Dir: "b"}, `BarrierWorkload.Dir is "b"`},
		{harness.BarrierWorkload{Recipe: noSingle, Single: true}, "BarrierWorkload.Single is set and recipe barrier has no Single barrier"},
		{harness.BarrierWorkload{Recipe: noEnter}, "recipe barrier has no Enter"},
		{harness.BarrierWorkload{Recipe: recipe.Barrier{Name: "mine"}}, "barrier: invalid configuration: recipe mine: Recipe.Enter and Recipe.Single are nil"},
	} {
		_, err := harness.Run(sim.Config{}, sim.NewSeeded(1), tc.w)
		if !errors.Is(err, harness.ErrWorkload) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("RunBarrier(%+v): got %v, want ErrWorkload with %q", tc.w, err, tc.want)
		}
		if _, err := harness.Explore(context.Background(), sim.Config{}, tc.w, sim.Bounds{}); !errors.Is(err, harness.ErrWorkload) {
			t.Errorf("Explore(%+v): got %v, want ErrWorkload", tc.w, err)
		}
	}
}

// TestWorkloadValidate_Accepts: the zero workload of a good recipe and
// every range's ends are valid.
func TestWorkloadValidate_Accepts(t *testing.T) {
	for _, w := range []harness.Workload{
		{Recipe: zoo.Mutex()},
		{Recipe: zoo.Mutex(), Clients: sim.MaxClients, Acquisitions: harness.MaxRounds, ReadPercent: 100, TimeoutPercent: 100, SequenceStart: 1<<31 - 1, Dir: "/a/b"},
	} {
		if err := w.Validate(); err != nil {
			t.Errorf("%+v: %v", w, err)
		}
	}
	for _, w := range []harness.BarrierWorkload{
		{Recipe: zoo.DoubleBarrier()},
		{Recipe: zoo.DoubleBarrier(), Single: true, Clients: 1, LatePercent: -1},
	} {
		if err := w.Validate(); err != nil {
			t.Errorf("%+v: %v", w, err)
		}
	}
}

// badChecks are go test entry points given bad options, each with what
// its failure must say.
var badChecks = []struct {
	name, want string
	check      func(t *testing.T)
}{
	{"CheckRecipe_Acquisitions", "Workload.Acquisitions is -1, want 0..100", func(t *testing.T) {
		harnesstest.Check(t, harnesstest.Lock(zoo.Mutex(), harness.Workload{Acquisitions: -1}), harnesstest.Options{})
	}},
	{"CheckRecipe_NilAcquire", "Recipe.Acquire is nil", func(t *testing.T) {
		harnesstest.Check(t, harnesstest.Lock(recipe.Lock{Name: "mine"}, harness.Workload{}), harnesstest.Options{})
	}},
	{"CheckRecipe_Percent", "Faults.Percent is 500, want 0..100", func(t *testing.T) {
		harnesstest.Check(t, harnesstest.Lock(zoo.Mutex(), harness.Workload{}), harnesstest.Options{Config: sim.Config{Faults: sim.Faults{Percent: 500}}})
	}},
	{"CheckBarrier_Rounds", "BarrierWorkload.Rounds is -1, want 0..100", func(t *testing.T) {
		harnesstest.Check(t, harnesstest.Barrier(zoo.DoubleBarrier(), harness.BarrierWorkload{Rounds: -1}), harnesstest.Options{})
	}},
	{"CheckBarrier_Percent", "Faults.Percent is 500, want 0..100", func(t *testing.T) {
		harnesstest.Check(t, harnesstest.Barrier(zoo.DoubleBarrier(), harness.BarrierWorkload{}), harnesstest.Options{Config: sim.Config{Faults: sim.Faults{Percent: 500}}})
	}},
	{"Check_Percent", "Faults.Percent is 500, want 0..100", func(t *testing.T) {
		harnesstest.Check(t, harness.Programs(nil, func(context.Context, *sim.Client) error { return nil }), harnesstest.Options{Config: sim.Config{Faults: sim.Faults{Percent: 500}}})
	}},
	{"CheckExhaustive_Clients", "Workload.Clients is -2, want 0..64", func(t *testing.T) {
		harnesstest.CheckExhaustive(t, harness.Workload{Recipe: zoo.Mutex(), Clients: -2}, harnesstest.Options{}, sim.Bounds{})
	}},
	{"CheckBarrierExhaustive_Clients", "BarrierWorkload.Clients is 100000, want 0..64", func(t *testing.T) {
		harnesstest.CheckExhaustive(t, harness.BarrierWorkload{Recipe: zoo.DoubleBarrier(), Clients: 100000}, harnesstest.Options{}, sim.Bounds{})
	}},
	{"CheckProgramsExhaustive_Bounds", "Ticks is -1, want 0 or more", func(t *testing.T) {
		harnesstest.CheckExhaustive(t, harness.Programs(nil, func(context.Context, *sim.Client) error { return nil }), harnesstest.Options{}, sim.Bounds{Ticks: -1})
	}},
}

// TestCheckEntryPoints_FailBeforeRapid: each go test entry point given a
// bad option fails its test with the option's name and range, before any
// check runs (no rapid line, no panic). The checks fail their tests, so
// they run in a child process of this test binary.
func TestCheckEntryPoints_FailBeforeRapid(t *testing.T) {
	if os.Getenv("ZKSIM_BAD_CHECKS") != "" {
		for _, c := range badChecks {
			t.Run(c.name, c.check)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCheckEntryPoints_FailBeforeRapid$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "ZKSIM_BAD_CHECKS=1")
	out, _ := cmd.CombinedOutput()
	for _, c := range badChecks {
		sub := regexp.MustCompile(`(?s)=== RUN   TestCheckEntryPoints_FailBeforeRapid/` + c.name + `\n(.*?)--- (\w+): TestCheckEntryPoints_FailBeforeRapid/` + c.name + ` `).FindStringSubmatch(string(out))
		if sub == nil || sub[2] != "FAIL" || !strings.Contains(sub[1], c.want) || strings.Contains(sub[1], "[rapid]") || strings.Contains(sub[1], "panic") {
			t.Errorf("%s: want a failure saying %q before rapid starts, got:\n%s", c.name, c.want, sub)
		}
	}
	if t.Failed() {
		t.Logf("child output:\n%s", out)
	}
}
