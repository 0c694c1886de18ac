package zktest

import (
	"context"
	"sync"
	"testing"
)

// Async is a blocking call (an Acquire queued behind a holder) running on
// a goroutine of its own, so that the test can check it is still waiting
// before it lets it through, and then wait for its result with a bound.
type Async[T any] struct {
	done chan struct{}
	val  T
	err  error
}

// Go runs fn on a goroutine that the test's cleanup cancels (through the
// ctx fn gets) and waits for, so that no call outlives its test. A call
// that ignores ctx must be ended otherwise, by a cleanup registered after
// Go (cleanups run last-registered first).
func Go[T any](t testing.TB, ctx context.Context, fn func(context.Context) (T, error)) *Async[T] {
	ctx, cancel := context.WithCancel(ctx)
	a := &Async[T]{done: make(chan struct{})}
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(a.done)
		a.val, a.err = fn(ctx)
	})
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	return a
}

// Done is closed once the call has returned.
func (a *Async[T]) Done() <-chan struct{} { return a.done }

// Result waits for the call to return and gives its outcome.
func (a *Async[T]) Result() (T, error) {
	<-a.done
	return a.val, a.err
}

// Receive waits for the call's value, failing t if it failed or if ctx
// ends first (a lost wake-up); what names the call in the failure.
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
	select {
	case <-a.done:
		t.Fatalf("%s: returned (err %v) while it should still wait", what, a.err)
	default:
	}
}
