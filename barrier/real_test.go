package barrier_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zksim/zksim/barrier"
	"github.com/zksim/zksim/expire"
	"github.com/zksim/zksim/internal/locktest"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi/gozk"
)

// These tests run the double barrier on a real server (see package
// zktest; they skip without one). Each member has a session of its own,
// as separate processes would.

// TestDouble_RealContention: 6 sessions share 30 passes of a barrier of
// 3 (10 rounds), on the standalone server and on the 3-node ensemble.
// Each session claims a pass before it enters: with a fixed count per
// session, a fast session could finish its share early and leave two
// sessions with passes no round of 3 can take. Every round
// has exactly 3 members, and no Leave returns before every member of its
// round has passed Enter and started Leave. The directory is empty at the
// end.
func TestDouble_RealContention(t *testing.T) {
	t.Run("standalone", func(t *testing.T) { testDoubleContention(t, zktest.Standalone(t), nil) })
	t.Run("ensemble", func(t *testing.T) { testDoubleContention(t, zktest.Serving(t, zktest.Ensemble(t)).Addrs, nil) })
}

// testDoubleContention runs the contention on addrs. inside, if set, is
// called by each member between its Enter and its Leave with the number
// of members that have entered so far (the leader kill happens there).
func testDoubleContention(t *testing.T, addrs []string, inside func(ctx context.Context, k int)) {
	ctx := zktest.Context(t, 3*time.Minute)
	admin := zktest.Dial(t, ctx, addrs, gozk.Config{SessionTimeout: realTimeout})
	root := zktest.Root(t, ctx, admin, "/zksim-barrier-test-")
	d := root + "/b"
	const sessions, n, passes = 6, 3, 30
	var claimed atomic.Int64
	conns := zktest.DialN(t, ctx, addrs, sessions, gozk.Config{SessionTimeout: realTimeout})
	var (
		mu      sync.Mutex
		entered int
	)
	members := map[int64]int{} // round (last seq) -> members that entered
	leaving := map[int64]int{} // round -> members about to Leave
	errs := locktest.RunAll(ctx, sessions, func(ctx context.Context, i int) error {
		b, err := barrier.NewDouble(conns[i], d, n, barrier.Options{ID: fmt.Sprint("s", i)})
		if err != nil {
			return err
		}
		for claimed.Add(1) <= passes {
			m, err := b.Enter(ctx)
			if err != nil {
				return err
			}
			_, r := m.Round()
			mu.Lock()
			members[r]++
			got := members[r]
			leaving[r]++
			entered++
			k := entered
			mu.Unlock()
			if got > n {
				return fmt.Errorf("round %d has %d members", r, got)
			}
			if inside != nil {
				inside(ctx, k)
			}
			if err := m.Check(); err != nil {
				return fmt.Errorf("Check inside round %d: %w", r, err)
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
	if len(members) != passes/n {
		t.Errorf("%d rounds, want %d", len(members), passes/n)
	}
	locktest.NoChildren(t, ctx, admin, d, "after every member left")
}

// TestDouble_RealExpiryInside: one of three members has its session
// killed (Curator's KillSession) while the others leave, on the
// standalone server and on the ensemble; they are not stuck, and the
// killed member's Leave reports ErrLost.
func TestDouble_RealExpiryInside(t *testing.T) {
	t.Run("standalone", func(t *testing.T) { testDoubleExpiryInside(t, zktest.Standalone(t)) })
	t.Run("ensemble", func(t *testing.T) { testDoubleExpiryInside(t, zktest.Serving(t, zktest.Ensemble(t)).Addrs) })
}

func testDoubleExpiryInside(t *testing.T, addrs []string) {
	ctx := zktest.Context(t, time.Minute)
	admin := zktest.Dial(t, ctx, addrs, gozk.Config{})
	root := zktest.Root(t, ctx, admin, "/zksim-barrier-test-")
	d := root + "/b"
	var capture expire.Capture
	conns := zktest.DialN(t, ctx, addrs, 2, gozk.Config{})
	conns = append(conns, zktest.Dial(t, ctx, addrs, gozk.Config{SessionTimeout: realTimeout, Dialer: capture.Dial}))
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
	if err := ms[2].Wait(ctx); !errors.Is(err, recipe.ErrLost) {
		t.Errorf("killed member's Wait: %v, want ErrLost", err)
	}
	if err := ms[2].Leave(ctx); !errors.Is(err, recipe.ErrLost) {
		t.Errorf("killed member's Leave: %v, want ErrLost", err)
	}
	locktest.NoChildren(t, ctx, admin, d, "after every member left")
}
