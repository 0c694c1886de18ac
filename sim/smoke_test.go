package sim_test

import (
	"context"
	"testing"

	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/sim"
)

func TestSim_LockSmoke(t *testing.T) {
	holders := 0
	maxHolders := 0
	prog := func(ctx context.Context, c *sim.Client) error {
		m, err := lock.New(c.Conn(), "/locks/x", lock.Options{ID: c.Name()})
		if err != nil {
			return err
		}
		for range 3 {
			l, err := m.Acquire(ctx)
			if err != nil {
				return err
			}
			holders++
			maxHolders = max(maxHolders, holders)
			c.Sleep(ctx, 1)
			holders--
			if err := l.Release(ctx); err != nil {
				return err
			}
		}
		return nil
	}
	for seed := range uint64(50) {
		res, err := sim.Run(sim.Config{}, sim.NewSeeded(seed), prog, prog, prog, prog, prog)
		if err != nil {
			t.Fatal(err)
		}
		if res.Deadlock || res.Bounded {
			t.Fatalf("seed %d: deadlock=%v bounded=%v\n%s", seed, res.Deadlock, res.Bounded, sim.TraceString(res.Trace))
		}
		for i, e := range res.Errors {
			if e != nil {
				t.Fatalf("seed %d client %d: %v", seed, i, e)
			}
		}
	}
	if maxHolders != 1 {
		t.Fatalf("max holders %d", maxHolders)
	}
}
