package sim_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zkapi"
)

// TestSend_OversizedFrames: a request frame longer than jute.maxbuffer
// never reaches the server, which drops the connection
// (ErrConnectionLoss), and one longer than go-zookeeper's send buffer
// fails at once with ErrMarshalling, the connection kept (zkclient.Send;
// measured on 3.8.0: conformance scenario sizes). Neither creates the
// node.
func TestSend_OversizedFrames(t *testing.T) {
	var errs []error
	var exists []bool
	prog := func(ctx context.Context, c *sim.Client) error {
		for _, n := range []int{2 << 20, 200, 10} {
			_, err := c.Conn().Create(ctx, "/big", bytes.Repeat([]byte{'x'}, n), zkapi.Persistent)
			errs = append(errs, err)
			for c.Conn().Session().State != zkapi.StateConnected {
				if _, err := c.Conn().WaitSession(ctx, c.Conn().Session().Seq); err != nil {
					return err
				}
			}
			_, ok, err := c.Conn().Exists(ctx, "/big")
			if err != nil {
				return err
			}
			exists = append(exists, ok)
		}
		return nil
	}
	cfg := sim.Config{Server: fakezk.Config{MaxFrame: 100}, Faults: sim.Faults{None: true}}
	res, err := sim.Run(cfg, sim.NewSeeded(1), prog)
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors[0] != nil || res.Deadlock || res.Bounded {
		t.Fatalf("run: %v deadlock=%v bounded=%v\n%s", res.Errors[0], res.Deadlock, res.Bounded, sim.TraceString(res.Trace))
	}
	want := []error{zkapi.ErrMarshalling, zkapi.ErrConnectionLoss, nil}
	for i, w := range want {
		if i >= len(errs) || !errors.Is(errs[i], w) || (w == nil) != (errs[i] == nil) {
			t.Fatalf("create errors %v, want %v", errs, want)
		}
	}
	if !(len(exists) == 3 && !exists[0] && !exists[1] && exists[2]) {
		t.Fatalf("the node exists after each create: %v, want false, false, true", exists)
	}
}
