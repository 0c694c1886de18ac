package sim_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/zksim/zksim/sim"
)

// TestRun_ClientsEndWithTheRun: a client program that panics is reported
// as that client's error, and the clients still parked when a run ends
// (here: a deadlock) are unwound, deferred calls included, even one that
// blocks again; no client goroutine outlives the run.
func TestRun_ClientsEndWithTheRun(t *testing.T) {
	before := runtime.NumGoroutine()
	var deferred, returned bool
	var sleepErr error
	res, err := sim.Run(sim.Config{}, sim.NewSeeded(1),
		func(context.Context, *sim.Client) error { panic("boom") },
		func(ctx context.Context, c *sim.Client) error {
			defer func() {
				deferred = true
				sleepErr = c.Sleep(ctx, 1)
			}()
			err := c.Sleep(ctx, 1000) // time stands still: a deadlock
			returned = true
			return err
		},
		func(context.Context, *sim.Client) error { return errors.New("done early") },
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 3 || res.Errors[0] == nil || !strings.Contains(res.Errors[0].Error(), "c1 panicked: boom") {
		t.Errorf("errors %v, want c1 panicked: boom first", res.Errors)
	}
	if res.Errors[1] != nil || res.Errors[2] == nil || res.Errors[2].Error() != "done early" {
		t.Errorf("errors %v, want none for c2 (stopped while parked) and c3's own", res.Errors)
	}
	if !res.Deadlock || len(res.Waiting) != 1 || res.Waiting[0] != "c2" {
		t.Errorf("deadlock %v, waiting %v, want a deadlock with c2 waiting", res.Deadlock, res.Waiting)
	}
	if returned || !deferred || sleepErr != nil {
		t.Errorf("c2: returned %v, deferred call ran %v (its sleep: %v), want unwound through its deferred call", returned, deferred, sleepErr)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after the run, %d before", n, before)
	}
}
