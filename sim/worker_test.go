package sim_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/zksim/zksim/internal/simhook"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zkapi"
)

// workerPrograms end in every way a client's program can: done, parked
// forever (a deadlock), parked when the step bound ends the run, crashed
// by a fault, and panicking.
func workerPrograms() map[string][]sim.Program {
	locker := func(ctx context.Context, c *sim.Client) error {
		m, err := lock.New(c.Conn(), "/locks/x", lock.Options{ID: c.Name()})
		if err != nil {
			return err
		}
		for range 2 {
			l, err := m.Acquire(ctx)
			if err != nil {
				return err
			}
			c.Sleep(ctx, 1)
			if err := l.Release(ctx); err != nil {
				return err
			}
		}
		return nil
	}
	stuck := func(ctx context.Context, c *sim.Client) error {
		for { // nobody creates it
			if _, _, w, err := c.Conn().ExistsW(ctx, "/never"); err == nil {
				w.Wait(ctx)
			}
		}
	}
	spinner := func(ctx context.Context, c *sim.Client) error {
		for {
			if _, _, err := c.Conn().Exists(ctx, "/"); err != nil && !errors.Is(err, zkapi.ErrConnectionLoss) {
				return err
			}
		}
	}
	panicker := func(ctx context.Context, c *sim.Client) error {
		c.Conn().Exists(ctx, "/")
		panic("boom")
	}
	return map[string][]sim.Program{
		"locks":    {locker, locker, locker},
		"deadlock": {locker, stuck},
		"bounded":  {spinner, locker},
		"panic":    {panicker, locker},
	}
}

func workerRun(t *testing.T, progs []sim.Program, seed uint64) string {
	t.Helper()
	cfg := sim.Config{MaxSteps: 3000, Faults: sim.Faults{Percent: 20, LoseRequest: 1, LoseReply: 1, Disconnect: 1, Crash: 1, Pause: 1}}
	res, err := sim.Run(cfg, sim.NewSeeded(seed), progs...)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(res.Deadlock, res.Bounded, res.Errors, res.Waiting) + "\n" + sim.TraceString(res.Trace)
}

// Runs that keep their workers for later runs give the traces runs that
// make their own give, whatever the runs before them left parked; and
// once released, no worker's goroutine is left.
func TestKeepWorkers_SameRunsNoGoroutineLeft(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	progs := workerPrograms()
	names := []string{"locks", "deadlock", "bounded", "panic"}
	want := map[string]string{}
	for _, name := range names {
		for seed := range uint64(20) {
			want[fmt.Sprint(name, seed)] = workerRun(t, progs[name], seed)
		}
	}
	var deadlocks, bounded, panics int
	for _, w := range want {
		deadlocks += strings.Count(w, "true false [")
		bounded += strings.Count(w, "false true [")
		panics += strings.Count(w, "panicked: boom")
	}
	if deadlocks == 0 || bounded == 0 || panics == 0 {
		t.Fatalf("the runs do not end every way: %d deadlocks, %d bounded, %d panics", deadlocks, bounded, panics)
	}
	release := simhook.KeepWorkers()
	for round := range 2 { // the second round's runs get the first's workers
		for _, name := range names {
			for seed := range uint64(20) {
				if got := workerRun(t, progs[name], seed); got != want[fmt.Sprint(name, seed)] {
					t.Fatalf("round %d, %s seed %d: a kept worker changed the run:\n%s\nwant:\n%s", round, name, seed, got, want[fmt.Sprint(name, seed)])
				}
			}
		}
	}
	release()
	release() // a second call does nothing
}
