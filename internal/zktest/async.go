package zktest

import (
	"context"
	"testing"
	"time"
)

// Async is a blocking call (an Acquire queued behind a holder) running on
// a goroutine of its own, so that the test can check it is still waiting
// before it lets it through, and then wait for its result with a bound.
type Async[T any] struct {
	done chan struct{}
	val  T
	err  error
}

// settleTimeout bounds how long Go's cleanup waits for a cancelled call.
const settleTimeout = 10 * time.Second

// Go runs fn on a goroutine that the test's cleanup cancels (through the
// ctx fn gets) and then waits for, failing t if the call has not returned
// within settleTimeout: no call may outlive its test, and one that ignores
// its ctx is a bug the test reports rather than a hang.
func Go[T any](t testing.TB, ctx context.Context, fn func(context.Context) (T, error)) *Async[T] {
	ctx, cancel := context.WithCancel(ctx)
	a := &Async[T]{done: make(chan struct{})}
	go func() {
		defer close(a.done)
		a.val, a.err = fn(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-a.done:
		case <-time.After(settleTimeout):
			t.Error("a call the test started did not return once its context was cancelled")
		}
	})
	return a
}

// Done is closed once the call has returned.
func (a *Async[T]) Done() <-chan struct{} { return a.done }

// Returned reports, without blocking, whether the call has returned.
func (a *Async[T]) Returned() bool {
	select {
	case <-a.done:
		return true
	default:
		return false
	}
}

// Result waits for the call to return and gives its outcome.
func (a *Async[T]) Result() (T, error) {
	<-a.done
	return a.val, a.err
}

// Wait gives the call's outcome, failing t if ctx ends first (a lost
// wake-up).
func (a *Async[T]) Wait(t testing.TB, ctx context.Context) (T, error) {
	t.Helper()
	select {
	case <-a.done:
		return a.val, a.err
	case <-ctx.Done():
		t.Fatalf("call had not returned: %v", ctx.Err())
		var zero T
		return zero, ctx.Err()
	}
}

// Receive waits for the call's value, failing t if it failed or if ctx
// ends first; what names the call in the failure.
func (a *Async[T]) Receive(t testing.TB, ctx context.Context, what string) T {
	t.Helper()
	select {
	case <-a.done:
		if a.err != nil {
			t.Fatalf("%s: %v", what, a.err)
		}
		return a.val
	case <-ctx.Done():
		t.Fatalf("%s: no result: %v", what, ctx.Err())
		var zero T
		return zero
	}
}

// Pending fails t if the call has returned: what should still wait.
func (a *Async[T]) Pending(t testing.TB, what string) {
	t.Helper()
	if a.Returned() {
		t.Fatalf("%s: returned (err %v) while it should still wait", what, a.err)
	}
}
