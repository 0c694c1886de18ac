package lock_test

import (
	"context"
	"errors"
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/lock"
)

// Two MultiMutexes over the same locks given in opposite orders cannot
// deadlock: both acquire in path order.
func TestMultiMutex_CanonicalOrder(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	a, err := lock.NewMulti(w.conn(), []string{"/m/x", "/m/y"}, lock.Options{ID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := lock.NewMulti(w.conn(), []string{"/m/y", "/m/x"}, lock.Options{ID: "b"})
	la, err := a.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	var lb *lock.MultiLease
	go func() {
		var err error
		lb, err = b.Acquire(ctx)
		done <- err
	}()
	// b queues on /m/x first, never holding /m/y while waiting.
	w.srv.WaitUntil(ctx, func(m *fakezk.Machine) bool { return len(m.Children("/m/x")) == 2 })
	if kids := w.children("/m/y"); len(kids) != 1 {
		t.Fatalf("b took /m/y out of order: %v", kids)
	}
	if err := la.Check(); err != nil {
		t.Fatal(err)
	}
	if err := la.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := len(lb.Leases()); got != 2 {
		t.Fatalf("b holds %d locks", got)
	}
	lb.Release(ctx)
}

// One deadline for the whole set; on failure the locks already taken are
// released.
func TestMultiMutex_AllOrNothing(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	blocker, _ := lock.New(w.conn(), "/m/y", lock.Options{ID: "z"})
	lz, _ := blocker.Acquire(ctx)
	mm, _ := lock.NewMulti(w.conn(), []string{"/m/x", "/m/y"}, lock.Options{ID: "a"})
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() {
		_, err := mm.Acquire(cctx)
		done <- err
	}()
	w.waitWatched(lz.Node())
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	if kids := w.children("/m/x"); len(kids) != 0 {
		t.Fatalf("/m/x still held after the set failed: %v", kids)
	}
	lz.Release(ctx)
}
