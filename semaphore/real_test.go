package semaphore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zksim/zksim/expire"
	"github.com/zksim/zksim/internal/locktest"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/semaphore"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// These tests run the semaphore on real servers: a standalone server
// (ZKSIM_ZK_STANDALONE) and a 3-node ensemble (ZKSIM_ZK_ENSEMBLE); each
// part skips without its server (see package zktest). Each client has a
// session of its own, as separate processes would.

// realTimeout is every session's timeout: the longest the servers grant
// (20 ticks), so that only a kill expires a session, and an ensemble's
// election (about a second) leaves them all alive.
const realTimeout = 10 * time.Second

// TestSemaphore_RealContention: 6 sessions share 60 acquisitions of a
// semaphore of 2 leases. An in-process count checks that never more than
// 2 are inside, every lease's token is unique, and the directory is empty
// once all have released.
func TestSemaphore_RealContention(t *testing.T) {
	t.Run("standalone", func(t *testing.T) { testRealContention(t, zktest.Standalone(t), nil) })
	t.Run("ensemble", func(t *testing.T) { testRealContention(t, zktest.Serving(t, zktest.Ensemble(t)).Addrs, nil) })
}

// TestSemaphore_EnsembleLeaderKill runs the contention of
// TestSemaphore_RealContention on the 3-node ensemble and SIGKILLs the
// ensemble's leader once, in the middle, while clients hold leases and
// others wait: requests fail with connection loss while the servers
// elect, and the clients ride through it. At most 2 holders at once,
// unique tokens, every acquisition done, nothing left behind. The killed
// server is restarted afterwards.
func TestSemaphore_EnsembleLeaderKill(t *testing.T) {
	c := zktest.Serving(t, zktest.EnsembleExclusive(t))
	if len(c.Addrs) < 3 {
		t.Skipf("%s has %d servers; a leader kill needs 3 or more", c.Dir, len(c.Addrs))
	}
	mid := make(chan struct{})
	var once sync.Once
	killed := make(chan int, 1)
	kill := func(ctx context.Context, n int) {
		if n != 20 {
			return
		}
		once.Do(func() {
			close(mid)
			old, err := c.Leader()
			if err != nil {
				t.Errorf("Leader: %v", err)
				return
			}
			t.Cleanup(func() { zktest.RestartIfDown(t, c, old) })
			if err := c.Kill(old); err != nil {
				t.Errorf("Kill(%d): %v", old, err)
				return
			}
			if _, err := c.WaitLeader(ctx); err != nil {
				t.Errorf("WaitLeader after killing %d: %v", old, err)
			}
			t.Logf("killed leader %d while holding lease %d; a new leader serves", old, n)
			killed <- old
		})
	}
	testRealContention(t, c.Addrs, kill)
	select {
	case <-mid:
	default:
		t.Fatal("the contention ended before the kill")
	}
	old := <-killed
	if err := c.Restart(old); err != nil {
		t.Fatalf("Restart(%d): %v", old, err)
	}
}

// testRealContention runs the contention on addrs. onHold, if set, is
// called by a holder, inside its lease, with the number of leases taken
// so far: the leader kill happens there, while others hold and wait.
func testRealContention(t *testing.T, addrs []string, onHold func(ctx context.Context, n int)) {
	ctx := zktest.Context(t, 3*time.Minute)
	admin := zktest.Dial(t, ctx, addrs, gozk.Config{SessionTimeout: realTimeout})
	root := zktest.Root(t, ctx, admin, "/zksim-semaphore-test-")
	dir := root + "/sem"
	const n, clients, each = 2, 6, 10
	conns := zktest.DialN(t, ctx, addrs, clients, gozk.Config{SessionTimeout: realTimeout})
	var (
		mu           sync.Mutex
		inside, most int
		taken        int
		tokens       = map[int64]bool{}
		connLoss     atomic.Int64
	)
	errs := locktest.RunAll(ctx, clients, func(ctx context.Context, i int) error {
		s, err := semaphore.New(conns[i], dir, n, semaphore.Options{ID: fmt.Sprint("c", i)})
		if err != nil {
			return err
		}
		for range each {
			l, err := locktest.RetryLoss(ctx, &connLoss, s.Acquire)
			if err != nil {
				return err
			}
			tok, err := locktest.RetryLoss(ctx, &connLoss, l.Token)
			if err != nil {
				return err
			}
			mu.Lock()
			inside++
			taken++
			most = max(most, inside)
			dup := tokens[tok]
			tokens[tok] = true
			k := taken
			mu.Unlock()
			if dup {
				return fmt.Errorf("token %#x handed out twice", tok)
			}
			if onHold != nil {
				onHold(ctx, k)
			}
			if err := l.Check(); err != nil {
				return fmt.Errorf("Check inside the lease: %w", err)
			}
			mu.Lock()
			inside--
			mu.Unlock()
			if err := l.Release(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	for _, err := range errs {
		t.Error(err)
	}
	if most > n {
		t.Errorf("%d holders at once, want at most %d", most, n)
	}
	if taken != clients*each {
		t.Errorf("%d leases taken, want %d", taken, clients*each)
	}
	locktest.NoChildren(t, ctx, admin, dir+"/queue", "with every lease released")
	locktest.NoChildren(t, ctx, admin, dir+"/leases", "with every lease released")
	zktest.CloseAll(t, conns)
	t.Logf("%d leases by %d sessions; %d connection losses retried", taken, clients, connLoss.Load())
}

// TestSemaphore_RealHolderExpiry: a holder's session is expired from
// outside (Curator's KillSession), on the standalone server and on the
// ensemble; the waiter takes its lease, and the old holder learns at once
// that it lost it: Wait, Check, Fenced and Release say ErrLost.
func TestSemaphore_RealHolderExpiry(t *testing.T) {
	t.Run("standalone", func(t *testing.T) { testRealHolderExpiry(t, zktest.Standalone(t)) })
	t.Run("ensemble", func(t *testing.T) { testRealHolderExpiry(t, zktest.Serving(t, zktest.Ensemble(t)).Addrs) })
}

func testRealHolderExpiry(t *testing.T, addrs []string) {
	ctx := zktest.Context(t, 2*time.Minute)
	admin := zktest.Dial(t, ctx, addrs, gozk.Config{SessionTimeout: realTimeout})
	root := zktest.Root(t, ctx, admin, "/zksim-semaphore-test-")
	dir, data := root+"/sem", root+"/data"
	zktest.Create(t, ctx, admin, data)
	var capture expire.Capture
	a := zktest.Dial(t, ctx, addrs, gozk.Config{SessionTimeout: realTimeout, Dialer: capture.Dial})
	b := zktest.Dial(t, ctx, addrs, gozk.Config{SessionTimeout: realTimeout})
	sa, err := semaphore.New(a, dir, 1, semaphore.Options{ID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	sb, err := semaphore.New(b, dir, 1, semaphore.Options{ID: "b"})
	if err != nil {
		t.Fatal(err)
	}
	la, err := sa.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pb := zktest.Go(t, ctx, sb.Acquire)
	if err := locktest.WaitChildren(ctx, admin, dir+"/queue", 1); err != nil {
		t.Fatal(err)
	}
	pb.Pending(t, "Acquire")
	if err := capture.Kill(ctx, la.Session()); err != nil {
		t.Fatalf("Kill(%#x): %v", la.Session(), err)
	}
	lb := pb.Receive(t, ctx, "Acquire")
	if err := la.Wait(ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("expired holder's Wait: %v, want ErrLost", err)
	}
	if err := la.Check(); !errors.Is(err, recipe.ErrLost) {
		t.Errorf("expired holder's Check: %v, want ErrLost", err)
	}
	if _, err := la.Fenced(ctx, zkapi.SetOp{Path: data, Data: []byte("stale"), Version: zkapi.AnyVersion}); !errors.Is(err, recipe.ErrLost) {
		t.Errorf("expired holder's Fenced: %v, want ErrLost", err)
	}
	if err := la.Release(ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("expired holder's Release: %v, want ErrLost", err)
	}
	if err := lb.Release(ctx); err != nil {
		t.Fatal(err)
	}
	locktest.NoChildren(t, ctx, admin, dir+"/queue", "with every lease released")
	locktest.NoChildren(t, ctx, admin, dir+"/leases", "with every lease released")
}
