package barrier_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/zksim/zksim/barrier"
	"github.com/zksim/zksim/expire"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// realTimeout is the session timeout of the real-server tests: the
// longest the servers grant (20 ticks), so that only a kill expires a
// session, and an ensemble's election (about a second) leaves them alive.
const realTimeout = 10 * time.Second

// parkedConn tells, on parked, each time an exists watch is set on a node
// that exists: a single-barrier waiter is then parked on the barrier. It
// lets a test on a real server know that every waiter waits, without
// sleeping.
type parkedConn struct {
	zkapi.Conn
	parked chan<- struct{}
}

func (c parkedConn) ExistsW(ctx context.Context, p string) (zkapi.Stat, bool, zkapi.Watch, error) {
	st, ok, w, err := c.Conn.ExistsW(ctx, p)
	if err == nil && ok {
		c.parked <- struct{}{}
	}
	return st, ok, w, err
}

// waiters starts a Wait on the barrier at p for each of conns, and
// returns once each has parked on the set barrier.
func waiters(t *testing.T, ctx context.Context, conns []zkapi.Conn, p string) []*zktest.Async[struct{}] {
	t.Helper()
	parked := make(chan struct{}, 16*len(conns))
	var waits []*zktest.Async[struct{}]
	for _, c := range conns {
		b, err := barrier.New(parkedConn{Conn: c, parked: parked}, p)
		if err != nil {
			t.Fatal(err)
		}
		waits = append(waits, zktest.Go(t, ctx, func(ctx context.Context) (struct{}, error) { return struct{}{}, b.Wait(ctx) }))
	}
	for range conns {
		select {
		case <-parked:
		case <-ctx.Done():
			t.Fatalf("waiters never parked: %v", ctx.Err())
		}
	}
	for i, w := range waits {
		w.Pending(t, fmt.Sprint("waiter ", i, " on a set barrier"))
	}
	return waits
}

// setBarrier sets the barrier at root+"/b" through admin.
func setBarrier(t *testing.T, ctx context.Context, admin zkapi.Conn, root string) *barrier.Barrier {
	t.Helper()
	b, err := barrier.New(admin, root+"/b")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Set(ctx); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBarrier_RealWaiterExpired: 4 sessions wait on a set barrier; one
// waiter's session is expired from outside (Curator's KillSession) while
// it waits; the barrier is removed; every waiter returns, the expired one
// too (its Conn carries on with a new session and looks again). On the
// standalone server and on the ensemble.
func TestBarrier_RealWaiterExpired(t *testing.T) {
	t.Run("standalone", func(t *testing.T) { testWaiterExpired(t, zktest.Standalone(t)) })
	t.Run("ensemble", func(t *testing.T) { testWaiterExpired(t, zktest.Serving(t, zktest.Ensemble(t)).Addrs) })
}

func testWaiterExpired(t *testing.T, addrs []string) {
	ctx := zktest.Context(t, time.Minute)
	admin := zktest.Dial(t, ctx, addrs, gozk.Config{SessionTimeout: realTimeout})
	root := zktest.Root(t, ctx, admin, "/zksim-barrier-test-")
	b := setBarrier(t, ctx, admin, root)
	var capture expire.Capture
	victim := zktest.Dial(t, ctx, addrs, gozk.Config{SessionTimeout: realTimeout, Dialer: capture.Dial})
	conns := append([]zkapi.Conn{victim}, zktest.DialN(t, ctx, addrs, 3, gozk.Config{SessionTimeout: realTimeout})...)
	waits := waiters(t, ctx, conns, root+"/b")
	old := victim.Session()
	if err := capture.Kill(ctx, old.ID); err != nil {
		t.Fatalf("Kill(%#x): %v", old.ID, err)
	}
	if err := awaitNewSession(ctx, victim, old.ID); err != nil {
		t.Fatal(err)
	}
	waits[0].Pending(t, "the expired waiter, on its new session")
	if err := b.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	for i, w := range waits {
		w.Receive(t, ctx, fmt.Sprint("waiter ", i, "'s Wait after Remove"))
	}
}

// awaitNewSession returns once c is connected on a session other than
// old.
func awaitNewSession(ctx context.Context, c zkapi.Conn, old int64) error {
	for {
		s := c.Session()
		if s.State == zkapi.StateConnected && s.ID != old {
			return nil
		}
		if _, err := c.WaitSession(ctx, s.Seq); err != nil {
			return fmt.Errorf("no new session after %#x: %w", old, err)
		}
	}
}

// TestBarrier_EnsembleLeaderKill: 4 sessions wait on a set barrier, and
// the ensemble's leader is SIGKILLed while they wait; the waiters ride
// through the connection loss, and the barrier's removal, once a new
// leader serves, releases every one. The killed server is restarted.
func TestBarrier_EnsembleLeaderKill(t *testing.T) {
	c := zktest.Serving(t, zktest.EnsembleExclusive(t))
	if len(c.Addrs) < 3 {
		t.Skipf("%s has %d servers; a leader kill needs 3 or more", c.Dir, len(c.Addrs))
	}
	ctx := zktest.Context(t, 2*time.Minute)
	admin := zktest.Dial(t, ctx, c.Addrs, gozk.Config{SessionTimeout: realTimeout})
	root := zktest.Root(t, ctx, admin, "/zksim-barrier-test-")
	b := setBarrier(t, ctx, admin, root)
	waits := waiters(t, ctx, zktest.DialN(t, ctx, c.Addrs, 4, gozk.Config{SessionTimeout: realTimeout}), root+"/b")
	old := killLeader(t, ctx, c)
	for i, w := range waits {
		w.Pending(t, fmt.Sprint("waiter ", i, " after the leader kill"))
	}
	if err := b.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	for i, w := range waits {
		w.Receive(t, ctx, fmt.Sprint("waiter ", i, "'s Wait after Remove"))
	}
	if err := c.Restart(old); err != nil {
		t.Fatalf("Restart(%d): %v", old, err)
	}
}

// killLeader SIGKILLs the ensemble's leader, waits for a new one, and
// returns the killed server's index; the test's cleanup restarts it if
// the test does not.
func killLeader(t *testing.T, ctx context.Context, c *zktest.Cluster) int {
	t.Helper()
	old, err := c.Leader()
	if err != nil {
		t.Fatalf("Leader: %v", err)
	}
	t.Cleanup(func() { zktest.RestartIfDown(t, c, old) })
	if err := c.Kill(old); err != nil {
		t.Fatalf("Kill(%d): %v", old, err)
	}
	if _, err := c.WaitLeader(ctx); err != nil {
		t.Fatalf("WaitLeader after killing %d: %v", old, err)
	}
	return old
}

// TestDouble_EnsembleLeaderKill runs the contention of
// TestDouble_RealContention on the 3-node ensemble and SIGKILLs the
// leader once, while a member of the fourth round is inside and the
// others of its round enter or leave: rounds stay whole, no Leave
// returns early, nothing is left behind. The killed server is restarted.
func TestDouble_EnsembleLeaderKill(t *testing.T) {
	c := zktest.Serving(t, zktest.EnsembleExclusive(t))
	if len(c.Addrs) < 3 {
		t.Skipf("%s has %d servers; a leader kill needs 3 or more", c.Dir, len(c.Addrs))
	}
	var (
		once   sync.Once
		killed = -1
	)
	testDoubleContention(t, c.Addrs, func(ctx context.Context, k int) {
		if k == 10 {
			once.Do(func() {
				old, err := c.Leader()
				if err == nil {
					err = c.Kill(old)
				}
				if err == nil {
					_, err = c.WaitLeader(ctx)
				}
				if err != nil {
					t.Errorf("leader kill: %v", err)
					return
				}
				killed = old
				t.Logf("killed leader %d while member %d was inside", old, k)
			})
		}
	})
	if killed < 0 {
		t.Fatal("the contention ended before the kill")
	}
	t.Cleanup(func() { zktest.RestartIfDown(t, c, killed) })
	if err := c.Restart(killed); err != nil {
		t.Fatalf("Restart(%d): %v", killed, err)
	}
}
