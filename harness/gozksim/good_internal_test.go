package gozksim

import (
	"context"
	"testing"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/simhook"
	"github.com/zksim/zksim/internal/simwire"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
	"github.com/zksim/zksim/zoo"
)

// overGoZK runs a zkapi recipe on real go-zookeeper clients: each
// acquisition through zkapi/gozk's adapter of the client's *zk.Conn.
func overGoZK(r recipe.Lock) recipe.Lock {
	adapters := map[*simwire.Client]*gozk.Conn{}
	return recipe.Lock{Name: r.Name, Keeps: r.Keeps, Dirs: r.Dirs, Leases: r.Leases,
		Acquire: func(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error) {
			c := simhook.ClientOf(conn).(*sim.Client)
			b, err := runOf(c.Sim()).bridge(c)
			if err != nil {
				return nil, err
			}
			a, ok := adapters[b]
			if !ok {
				a = gozk.FromConn(b.Conn(), b.Events())
				adapters[b] = a
			}
			var h recipe.Held
			err = b.Do(func() error {
				var err error
				h, err = r.Acquire(ctx, a, dir, id)
				return err
			})
			if err != nil {
				return nil, err
			}
			return held{b, func() error { return h.Release(ctx) }}, nil
		}}
}

// zksim's own good lock, run on real go-zookeeper clients through the
// zkapi/gozk adapter (as on a real ensemble), shows no violation under
// every default fault: the wire path raises no false alarm.
func TestGoodLockOverGoZK_NoFalseAlarm(t *testing.T) {
	w := subject{t: t, Subject: harness.Lock(overGoZK(zoo.Mutex()), harness.Workload{Clients: 3, Acquisitions: 2})}
	for seed := uint64(1); seed <= 300; seed++ {
		rep, err := harness.Run(sim.Config{Faults: sim.DefaultFaults()}, sim.NewSeeded(seed), w)
		if err != nil {
			t.Fatal(err)
		}
		if !rep.OK() {
			t.Fatalf("seed %d: %v\n%s", seed, rep.Violations, sim.TraceString(rep.Result.Trace))
		}
	}
}
