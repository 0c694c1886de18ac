package sim_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/linearize"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zkapi"
)

// registerClient does versioned reads and compare-and-set writes on /reg,
// recording each with its call and return step. A connection loss leaves
// the outcome unknown.
func registerClient(ops *[]linearize.RegisterOp, sync bool) sim.Program {
	return func(ctx context.Context, c *sim.Client) error {
		conn := c.Conn()
		for i := range 4 {
			// With sync, a read is fresh as of the sync's call (not of the
			// read's): that is when its interval begins. A sync that
			// failed promises nothing: the client may since have
			// reconnected to a replica that is behind (go-zookeeper moves
			// on to the next server), so its read is not recorded.
			start := stepOf(c)
			if sync {
				if err := conn.Sync(ctx, "/reg"); err != nil {
					continue
				}
			}
			data, st, err := conn.Get(ctx, "/reg")
			if err == nil {
				*ops = append(*ops, linearize.RegisterOp{Client: c.Index(), Read: true, Value: string(data),
					Version: st.Version, Call: start, Return: stepOf(c)})
			}
			if err != nil {
				continue
			}
			val := fmt.Sprintf("%s.%d", c.Name(), i)
			start, expect := stepOf(c), st.Version
			st, err = conn.Set(ctx, "/reg", []byte(val), expect)
			op := linearize.RegisterOp{Client: c.Index(), Value: val, Expect: expect, Call: start, Return: stepOf(c)}
			switch {
			case err == nil:
				op.Ok, op.Version = true, st.Version
			case errors.Is(err, zkapi.ErrConnectionLoss):
				op.Unknown = true
			case !errors.Is(err, zkapi.ErrBadVersion):
				continue
			}
			*ops = append(*ops, op)
		}
		return nil
	}
}

var stepCounter int64

// stepOf is a logical clock shared by the clients of one run: exactly one
// runs at a time, so a counter orders their calls and returns.
func stepOf(*sim.Client) int64 { stepCounter++; return stepCounter }

// Versioned gets and sets on fakezk are linearizable under faults; with
// followers, reads are linearizable after a sync (docs/zk-semantics.md rule 22: reads
// alone may be stale).
func TestRegister_FakezkLinearizable(t *testing.T) {
	for _, followers := range []int{0, 2} {
		for seed := range uint64(200) {
			var ops []linearize.RegisterOp
			cfg := sim.Config{
				Server: fakezk.Config{Seed: seed, Followers: followers},
				Faults: sim.Faults{Percent: 5, LoseRequest: 2, LoseReply: 2, Disconnect: 2},
			}
			p := registerClient(&ops, followers > 0)
			res, err := runFixture(cfg, sim.NewSeeded(seed), createReg, p, p, p)
			if err != nil {
				t.Fatal(err)
			}
			// A run that stalls records fewer operations and would pass
			// the check vacuously.
			if res.Deadlock || res.Bounded || len(res.Waiting) > 0 || len(ops) == 0 {
				t.Fatalf("followers=%d seed %d: run did not finish (deadlock %v, bounded %v, waiting %v, %d ops)",
					followers, seed, res.Deadlock, res.Bounded, res.Waiting, len(ops))
			}
			for i, err := range res.Errors {
				if err != nil {
					t.Fatalf("followers=%d seed %d: client %d: %v", followers, seed, i, err)
				}
			}
			if vs := checkers.Register(ops); vs != nil {
				t.Fatalf("followers=%d seed %d: %v\n%+v", followers, seed, vs, ops)
			}
		}
	}
}

// Without sync, a follower's stale read is caught by the same model.
func TestRegister_StaleFollowerReadDetected(t *testing.T) {
	found := false
	for seed := uint64(0); seed < 300 && !found; seed++ {
		var ops []linearize.RegisterOp
		cfg := sim.Config{Server: fakezk.Config{Seed: seed, Followers: 2}}
		p := registerClient(&ops, false)
		runFixture(cfg, sim.NewSeeded(seed), createReg, p, p, p)
		found = checkers.Register(ops) != nil
	}
	if !found {
		t.Fatal("no stale read found in 300 schedules with lagging followers")
	}
}

// createReg creates the register's node, from a session then closed.
func createReg(m *machine.Machine) {
	info, _ := m.CreateSession(0, 10000)
	m.Do(info.ID, proto.Create{Path: "/reg"})
	m.CloseSession(info.ID)
}
