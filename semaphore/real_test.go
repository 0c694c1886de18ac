package semaphore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/zksim/zksim/expire"
	"github.com/zksim/zksim/internal/locktest"
	"github.com/zksim/zksim/semaphore"
	"github.com/zksim/zksim/zkapi/gozk"
	"github.com/zksim/zksim/zktest"
)

// These tests run the semaphore on a real standalone server (see package
// zktest; they skip without ZKSIM_ZK_STANDALONE). Each client has a
// session of its own, as separate processes would.

// TestSemaphore_RealContention: 6 sessions share 60 acquisitions of a
// semaphore of 2 leases. An in-process count checks that never more than
// 2 are inside, every lease's token is unique, and the directory is empty
// once all have released.
func TestSemaphore_RealContention(t *testing.T) {
	addrs := zktest.Standalone(t)
	ctx := zktest.Context(t, 2*time.Minute)
	admin := zktest.Dial(t, ctx, addrs, gozk.Config{SessionTimeout: 10 * time.Second})
	root := zktest.Root(t, ctx, admin, "/zksim-semaphore-test-")
	dir := root + "/sem"
	const n, clients, each = 2, 6, 10
	conns := zktest.DialN(t, ctx, addrs, clients, gozk.Config{SessionTimeout: 10 * time.Second})
	var (
		mu           sync.Mutex
		inside, most int
		tokens       = map[int64]bool{}
	)
	errs := locktest.RunAll(ctx, clients, func(ctx context.Context, i int) error {
		s, err := semaphore.New(conns[i], dir, n, semaphore.Options{ID: fmt.Sprint("c", i)})
		if err != nil {
			return err
		}
		for range each {
			l, err := s.Acquire(ctx)
			if err != nil {
				return err
			}
			tok, err := l.Token(ctx)
			if err != nil {
				return err
			}
			mu.Lock()
			inside++
			most = max(most, inside)
			dup := tokens[tok]
			tokens[tok] = true
			mu.Unlock()
			if dup {
				return fmt.Errorf("token %#x handed out twice", tok)
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
	locktest.NoChildren(t, ctx, admin, dir, "with every lease released")
	zktest.CloseAll(t, conns)
}

// TestSemaphore_RealHolderExpiry: a holder's session is expired from
// outside (Curator's KillSession); the waiter takes its lease, and the old
// holder learns at once that it lost it.
func TestSemaphore_RealHolderExpiry(t *testing.T) {
	addrs := zktest.Standalone(t)
	ctx := zktest.Context(t, 2*time.Minute)
	admin := zktest.Dial(t, ctx, addrs, gozk.Config{SessionTimeout: 10 * time.Second})
	dir := zktest.Root(t, ctx, admin, "/zksim-semaphore-test-") + "/sem"
	var capture expire.Capture
	a := zktest.Dial(t, ctx, addrs, gozk.Config{SessionTimeout: 10 * time.Second, Dialer: capture.Dial})
	b := zktest.Dial(t, ctx, addrs, gozk.Config{SessionTimeout: 10 * time.Second})
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
	if err := locktest.WaitChildren(ctx, admin, dir, 2); err != nil {
		t.Fatal(err)
	}
	pb.Pending(t, "Acquire")
	if err := capture.Kill(ctx, la.Session()); err != nil {
		t.Fatalf("Kill(%#x): %v", la.Session(), err)
	}
	lb := pb.Receive(t, ctx, "Acquire")
	if err := la.Wait(ctx); !errors.Is(err, semaphore.ErrLost) {
		t.Fatalf("expired holder's Wait: %v, want ErrLost", err)
	}
	if err := la.Release(ctx); !errors.Is(err, semaphore.ErrLost) {
		t.Fatalf("expired holder's Release: %v, want ErrLost", err)
	}
	if err := lb.Release(ctx); err != nil {
		t.Fatal(err)
	}
	locktest.NoChildren(t, ctx, admin, dir, "with every lease released")
}
