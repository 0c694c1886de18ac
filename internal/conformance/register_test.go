package conformance_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/linearize"
	"github.com/zksim/zksim/zkapi"
)

// TestRegister_RealLinearizable runs concurrent versioned gets and
// compare-and-sets on one znode of the real server from four sessions and
// checks the history with the register model, as the simulator does for
// fakezk.
func TestRegister_RealLinearizable(t *testing.T) {
	skipUnderRace(t)
	target := newReal(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := target.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	path := uniqueRoot("register")
	if _, err := admin.Create(ctx, path, nil, zkapi.Persistent); err != nil {
		t.Fatal(err)
	}
	defer admin.Delete(ctx, path, -1)

	var clock atomic.Int64
	var mu sync.Mutex
	var ops []linearize.RegisterOp
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for client := range 4 {
		conn, err := target.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				call := clock.Add(1)
				data, st, err := conn.Get(ctx, path)
				if err != nil {
					errs <- err
					return
				}
				read := linearize.RegisterOp{Client: client, Read: true, Value: string(data), Version: st.Version, Call: call, Return: clock.Add(1)}
				val := fmt.Sprintf("c%d.%d", client, i)
				call = clock.Add(1)
				st2, err := conn.Set(ctx, path, []byte(val), st.Version)
				set := linearize.RegisterOp{Client: client, Value: val, Expect: st.Version, Call: call, Return: clock.Add(1)}
				switch {
				case err == nil:
					set.Ok, set.Version = true, st2.Version
				case errors.Is(err, zkapi.ErrConnectionLoss):
					set.Unknown = true
				case !errors.Is(err, zkapi.ErrBadVersion):
					errs <- err
					return
				}
				mu.Lock()
				ops = append(ops, read, set)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if vs := checkers.Register(ops); vs != nil {
		t.Fatalf("%v", vs)
	}
	t.Logf("%d operations linearizable", len(ops))
}
