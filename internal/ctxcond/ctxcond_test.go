package ctxcond_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/zksim/zksim/internal/ctxcond"
)

func TestVar_WaitWakesOnBroadcast(t *testing.T) {
	var (
		mu sync.Mutex
		v  ctxcond.Var
		n  int
	)
	done := make(chan error)
	go func() { done <- v.Wait(context.Background(), &mu, func() bool { return n == 2 }) }()
	for range 2 {
		mu.Lock()
		n++
		v.Broadcast()
		mu.Unlock()
	}
	if err := <-done; err != nil {
		t.Fatalf("Wait: %v", err)
	}
}

func TestVar_WaitEndsWithContext(t *testing.T) {
	var (
		mu sync.Mutex
		v  ctxcond.Var
	)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := v.Wait(ctx, &mu, func() bool { return false }); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait on a false condition under a cancelled ctx: %v, want context.Canceled", err)
	}
	if err := v.Wait(ctx, &mu, func() bool { return true }); err != nil {
		t.Fatalf("Wait on a true condition under a cancelled ctx: %v, want nil", err)
	}
}
