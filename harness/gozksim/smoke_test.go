package gozksim_test

import (
	"context"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/harness/gozksim"
	"github.com/zksim/zksim/sim"
)

func TestPrograms_CreateAndRead(t *testing.T) {
	write := func(ctx context.Context, conn *zk.Conn) error {
		_, err := conn.Create("/x", []byte("hi"), 0, zk.WorldACL(zk.PermAll))
		return err
	}
	read := func(ctx context.Context, conn *zk.Conn) error {
		for {
			ok, _, ch, err := conn.ExistsW("/x")
			if err != nil {
				return err
			}
			if ok {
				return nil
			}
			<-ch
		}
	}
	w := gozksim.Programs(t, nil, write, read)
	rep, err := harness.Run(sim.Config{Faults: sim.Faults{None: true}}, sim.NewSeeded(1), w)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(sim.TraceString(rep.Result.Trace))
	if !rep.OK() {
		t.Fatalf("%v", rep.Violations)
	}
}
