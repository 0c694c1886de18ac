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
		w    harness.Subject
		want string
	}{
		{harness.Lock(good, harness.Workload{Clients: -2}), "harness: invalid workload: Workload.Clients is -2, want 0..64 (0: 5)"},
		{harness.Lock(good, harness.Workload{Clients: 100000}), "Workload.Clients is 100000, want 0..64"},
		{harness.Lock(good, harness.Workload{Acquisitions: -1}), "Workload.Acquisitions is -1, want 0..100 (0: 3)"},
		{harness.Lock(good, harness.Workload{Acquisitions: 101}), "Workload.Acquisitions is 101, want 0..100"},
		{harness.Lock(good, harness.Workload{HoldTicks: -1}), "Workload.HoldTicks is -1, want 0 or more"},
		{harness.Lock(good, harness.Workload{ReadPercent: 150}), "Workload.ReadPercent is 150, want 0..100"},
		{harness.Lock(good, harness.Workload{TimeoutTicks: -12}), "Workload.TimeoutTicks is -12, want 0 or more"},
		{harness.Lock(good, harness.Workload{TimeoutTicks: 1 << 40}), "Workload.TimeoutTicks is 1099511627776, want 0..2147483647"},
		{harness.Lock(good, harness.Workload{TimeoutPercent: -1}), "Workload.TimeoutPercent is -1, want 0..100"},
		{harness.Lock(good, harness.Workload{SequenceStart: -5}), "Workload.SequenceStart is -5, want 0 or more"},
		{harness.Lock(good, harness.Workload{Dir: "locks"}), `Workload.Dir is "locks", want an absolute path other than /`},
		{harness.Lock(good, harness.Workload{Dir: "/"}), `Workload.Dir is "/", want an absolute path other than /`},
		{harness.Lock(good, harness.Workload{Dir: "/locks/"}), `Workload.Dir is "/locks/", want a path without empty`},
		{harness.Lock(recipe.Lock{Name: "mine"}, harness.Workload{}), "lock: invalid configuration: recipe mine: Recipe.Acquire is nil"},
		{harness.Lock(recipe.Lock{Acquire: good.Acquire}, harness.Workload{}), `Recipe.Name is "", want a name without spaces`},
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
	w := harness.Lock(zoo.Mutex(), harness.Workload{})
	if _, err := harness.Run(cfg, sim.NewSeeded(1), w); !errors.Is(err, sim.ErrConfig) {
		t.Errorf("RunWorkload: got %v, want sim.ErrConfig", err)
	}
	if err := harness.Validate(cfg, w); !errors.Is(err, sim.ErrConfig) || !strings.Contains(err.Error(), "Faults.Percent is 500, want 0..100") {
		t.Errorf("Validate: got %v", err)
	}
	if _, err := harness.Run(cfg, sim.NewSeeded(1), harness.Barrier(zoo.DoubleBarrier(), harness.BarrierWorkload{})); !errors.Is(err, sim.ErrConfig) {
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
		w    harness.Subject
		want string
	}{
		{harness.Barrier(good, harness.BarrierWorkload{Clients: -1}), "BarrierWorkload.Clients is -1, want 0..64 (0: 3)"},
		{harness.Barrier(good, harness.BarrierWorkload{Clients: 65}), "BarrierWorkload.Clients is 65, want 0..64"},
		{harness.Barrier(good, harness.BarrierWorkload{Rounds: -1}), "BarrierWorkload.Rounds is -1, want 0..100 (0: 2)"},
		{harness.Barrier(good, harness.BarrierWorkload{WorkTicks: -1}), "BarrierWorkload.WorkTicks is -1, want 0 or more"},
		{harness.Barrier(good, harness.BarrierWorkload{Attempts: 1000}), "BarrierWorkload.Attempts is 1000, want 0..100 (0: 2)"},
		{harness.Barrier(good, harness.BarrierWorkload{LatePercent: -2}), "BarrierWorkload.LatePercent is -2, want -1..100 (0: 50, -1: none)"},
		{harness.Barrier(good, harness.BarrierWorkload{Dir: "b"}), `BarrierWorkload.Dir is "b"`},
		{harness.Barrier(noSingle, harness.BarrierWorkload{Single: true}), "BarrierWorkload.Single is set and recipe barrier has no Single barrier"},
		{harness.Barrier(noEnter, harness.BarrierWorkload{}), "recipe barrier has no Enter"},
		{harness.Barrier(recipe.Barrier{Name: "mine"}, harness.BarrierWorkload{}), "barrier: invalid configuration: recipe mine: Recipe.Enter and Recipe.Single are nil"},
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
		{},
		{Clients: sim.MaxClients, Acquisitions: 100, ReadPercent: 100, TimeoutPercent: 100, SequenceStart: 1<<31 - 1, Dir: "/a/b"},
	} {
		if err := w.Validate(); err != nil {
			t.Errorf("%+v: %v", w, err)
		}
		if err := harness.Validate(sim.Config{}, harness.Lock(zoo.Mutex(), w)); err != nil {
			t.Errorf("%+v: %v", w, err)
		}
	}
	for _, w := range []harness.BarrierWorkload{
		{},
		{Single: true, Clients: 1, LatePercent: -1},
	} {
		if err := w.Validate(); err != nil {
			t.Errorf("%+v: %v", w, err)
		}
		if err := harness.Validate(sim.Config{}, harness.Barrier(zoo.DoubleBarrier(), w)); err != nil {
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
	{"Check_LockAcquisitions", "Workload.Acquisitions is -1, want 0..100", func(t *testing.T) {
		harnesstest.Check(t, harness.Lock(zoo.Mutex(), harness.Workload{Acquisitions: -1}), harnesstest.Options{})
	}},
	{"Check_LockNilAcquire", "Recipe.Acquire is nil", func(t *testing.T) {
		harnesstest.Check(t, harness.Lock(recipe.Lock{Name: "mine"}, harness.Workload{}), harnesstest.Options{})
	}},
	{"Check_LockPercent", "Faults.Percent is 500, want 0..100", func(t *testing.T) {
		harnesstest.Check(t, harness.Lock(zoo.Mutex(), harness.Workload{}), harnesstest.Options{Config: sim.Config{Faults: sim.Faults{Percent: 500}}})
	}},
	{"Check_BarrierRounds", "BarrierWorkload.Rounds is -1, want 0..100", func(t *testing.T) {
		harnesstest.Check(t, harness.Barrier(zoo.DoubleBarrier(), harness.BarrierWorkload{Rounds: -1}), harnesstest.Options{})
	}},
	{"Check_BarrierPercent", "Faults.Percent is 500, want 0..100", func(t *testing.T) {
		harnesstest.Check(t, harness.Barrier(zoo.DoubleBarrier(), harness.BarrierWorkload{}), harnesstest.Options{Config: sim.Config{Faults: sim.Faults{Percent: 500}}})
	}},
	{"Check_Percent", "Faults.Percent is 500, want 0..100", func(t *testing.T) {
		harnesstest.Check(t, harness.Programs(nil, func(context.Context, *sim.Client) error { return nil }), harnesstest.Options{Config: sim.Config{Faults: sim.Faults{Percent: 500}}})
	}},
	{"CheckExhaustive_Clients", "Workload.Clients is -2, want 0..64", func(t *testing.T) {
		harnesstest.CheckExhaustive(t, harness.Lock(zoo.Mutex(), harness.Workload{Clients: -2}), harnesstest.Options{}, sim.Bounds{})
	}},
	{"CheckExhaustive_BarrierClients", "BarrierWorkload.Clients is 100000, want 0..64", func(t *testing.T) {
		harnesstest.CheckExhaustive(t, harness.Barrier(zoo.DoubleBarrier(), harness.BarrierWorkload{Clients: 100000}), harnesstest.Options{}, sim.Bounds{})
	}},
	{"CheckExhaustive_ProgramsBounds", "Ticks is -1, want 0 or more", func(t *testing.T) {
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
