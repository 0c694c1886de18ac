package sim_test

import (
	"context"
	"errors"
	"testing"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zkapi"
)

// TestRun_RewatchSurvivesASecondDrop: a watch re-registered on reconnect
// fires at once when its node changed while the client was away; if the
// connection drops again before that notification arrives, the next
// reconnect must re-register it from the same zxid, since the reply to
// the SetWatches, which tells the client the server's zxid, follows the
// notification on the wire and is lost with it. (ZooKeeper's
// DataTree.setWatches triggers the watches before the reply is sent;
// go-zookeeper keeps a watch until its event arrives and re-sends it with
// its lastZxid on every reconnect.) The waiter must always wake.
func TestRun_RewatchSurvivesASecondDrop(t *testing.T) {
	waiter := func(ctx context.Context, c *sim.Client) error {
		for {
			data, _, w, err := c.Conn().GetW(ctx, "/n")
			switch {
			case err == nil && string(data) == "x":
				return nil
			case err == nil:
				_, err = w.Wait(ctx)
			}
			if err != nil && !errors.Is(err, zkapi.ErrConnectionLoss) {
				return err
			}
		}
	}
	setter := func(ctx context.Context, c *sim.Client) error {
		c.Sleep(ctx, 1)
		for {
			_, err := c.Conn().Set(ctx, "/n", []byte("x"), -1)
			if !errors.Is(err, zkapi.ErrConnectionLoss) {
				return err
			}
		}
	}
	for seed := range uint64(3000) {
		cfg := sim.Config{Faults: sim.Faults{Percent: 40, Disconnect: 4}, NoTrace: true, SessionTimeoutMs: 100000}
		res, err := runFixture(cfg, sim.NewSeeded(seed), func(m *machine.Machine) {
			s, _ := m.CreateSession(0, 4000)
			m.Do(s.ID, proto.Create{Path: "/n", Mode: zkapi.Persistent})
			m.CloseSession(s.ID)
		}, waiter, setter)
		if err != nil {
			t.Fatal(err)
		}
		if vs := res.Verdicts(); len(vs) > 0 {
			t.Fatalf("seed %d: %v", seed, vs)
		}
	}
}

// runFixture runs programs as sim.Run does, the ensemble first set up by
// fixture through the run's whole Machine (as the module sets a run up:
// sim.Sim.State is the *machine.Machine).
func runFixture(cfg sim.Config, ch sim.Chooser, fixture func(m *machine.Machine), programs ...sim.Program) (*sim.Result, error) {
	s, err := sim.New(cfg, ch)
	if err != nil {
		return nil, err
	}
	fixture(s.State().(*machine.Machine))
	return s.Run(programs...), nil
}
