package barrier_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/zksim/zksim/barrier"
	"github.com/zksim/zksim/expire"
	"github.com/zksim/zksim/internal/locktest"
	"github.com/zksim/zksim/zkapi/gozk"
	"github.com/zksim/zksim/zktest"
)

// These tests run the double barrier on a real server (see package
// zktest; they skip without one). Each member has a session of its own,
// as separate processes would.

// TestDouble_RealContention: 6 sessions pass a barrier of 3 five times
// each. Every round has exactly 3 members, and no Leave returns before
// every member of its round has passed Enter and started Leave. The
// directory is empty at the end.
func TestDouble_RealContention(t *testing.T) {
	addrs := zktest.Standalone(t)
	ctx := zktest.Context(t, 2*time.Minute)
	admin := zktest.Dial(t, ctx, addrs, gozk.Config{})
	root := zktest.Root(t, ctx, admin, "/zksim-barrier-test-")
	d := root + "/b"
	const sessions, n, passes = 6, 3, 5
	conns := zktest.DialN(t, ctx, addrs, sessions, gozk.Config{})
	var mu sync.Mutex
	members := map[int64]int{} // round (last seq) -> members that entered
	leaving := map[int64]int{} // round -> members about to Leave
	errs := locktest.RunAll(ctx, sessions, func(ctx context.Context, i int) error {
		b, err := barrier.NewDouble(conns[i], d, n, barrier.Options{ID: fmt.Sprint("s", i)})
		if err != nil {
			return err
		}
		for range passes {
			m, err := b.Enter(ctx)
			if err != nil {
				return err
			}
			_, r := m.Round()
			mu.Lock()
			members[r]++
			got := members[r]
			leaving[r]++
			mu.Unlock()
			if got > n {
				return fmt.Errorf("round %d has %d members", r, got)
			}
			if err := m.Leave(ctx); err != nil {
				return err
			}
			mu.Lock()
			left := leaving[r]
			mu.Unlock()
			if left != n {
				return fmt.Errorf("Leave of round %d returned with %d of %d members leaving", r, left, n)
			}
		}
		return nil
	})
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	for r, got := range members {
		if got != n {
			t.Errorf("round %d had %d members, want %d", r, got, n)
		}
	}
	if len(members) != sessions*passes/n {
		t.Errorf("%d rounds, want %d", len(members), sessions*passes/n)
	}
	locktest.NoChildren(t, ctx, admin, d, "after every member left")
}

// TestDouble_RealExpiryInside: one of three members has its session
// killed (Curator's KillSession) while the others leave; they are not
// stuck, and the killed member's Leave reports ErrLost.
func TestDouble_RealExpiryInside(t *testing.T) {
	addrs := zktest.Standalone(t)
	ctx := zktest.Context(t, time.Minute)
	admin := zktest.Dial(t, ctx, addrs, gozk.Config{})
	root := zktest.Root(t, ctx, admin, "/zksim-barrier-test-")
	d := root + "/b"
	var capture expire.Capture
	conns := zktest.DialN(t, ctx, addrs, 2, gozk.Config{})
	conns = append(conns, zktest.Dial(t, ctx, addrs, gozk.Config{SessionTimeout: 10 * time.Second, Dialer: capture.Dial}))
	var calls []*zktest.Async[*barrier.Member]
	for i, c := range conns {
		b, err := barrier.NewDouble(c, d, 3, barrier.Options{ID: fmt.Sprint("s", i)})
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, zktest.Go(t, ctx, b.Enter))
	}
	var ms []*barrier.Member
	for _, c := range calls {
		ms = append(ms, c.Receive(t, ctx, "Enter"))
	}
	leaves := []*zktest.Async[struct{}]{}
	for _, m := range ms[:2] {
		leaves = append(leaves, zktest.Go(t, ctx, func(ctx context.Context) (struct{}, error) { return struct{}{}, m.Leave(ctx) }))
	}
	if err := capture.Kill(ctx, ms[2].Session()); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	for _, l := range leaves {
		l.Receive(t, ctx, "Leave of a survivor")
	}
	if err := ms[2].Wait(ctx); !errors.Is(err, barrier.ErrLost) {
		t.Errorf("killed member's Wait: %v, want ErrLost", err)
	}
	if err := ms[2].Leave(ctx); !errors.Is(err, barrier.ErrLost) {
		t.Errorf("killed member's Leave: %v, want ErrLost", err)
	}
	locktest.NoChildren(t, ctx, admin, d, "after every member left")
}
