package barrier_test

import (
	"context"
	"errors"
	"testing"

	"github.com/zksim/zksim/barrier"
	"github.com/zksim/zksim/internal/fakehook"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/recipe"
)

// Waiters block while the barrier is set; Remove wakes each once; the
// ancestors made by Set are containers, reaped once the barrier is gone.
func TestBarrier_WaitUntilRemoved(t *testing.T) {
	w := newWorld(t)
	const path = "/barriers/single/b"
	c, _ := w.conn()
	b, err := barrier.New(c, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Set(w.ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Set(w.ctx); err != nil {
		t.Fatalf("second Set: %v", err)
	}
	const n = 3
	var waits []*zktest.Async[struct{}]
	for range n {
		wc, _ := w.conn()
		wb, err := barrier.New(wc, path)
		if err != nil {
			t.Fatal(err)
		}
		waits = append(waits, zktest.Go(t, w.ctx, func(ctx context.Context) (struct{}, error) { return struct{}{}, wb.Wait(ctx) }))
	}
	err = fakehook.WaitUntil(w.ctx, w.srv, func(m *machine.Machine) bool {
		data, _ := m.Watchers(0, path)
		return len(data) == n
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, wt := range waits {
		wt.Pending(t, "Wait on a set barrier")
	}
	if err := b.Remove(w.ctx); err != nil {
		t.Fatal(err)
	}
	for _, wt := range waits {
		wt.Receive(t, w.ctx, "Wait")
	}
	if got := w.wakes.Load(); got != n {
		t.Errorf("Remove woke %d times, want %d", got, n)
	}
	if err := b.Remove(w.ctx); err != nil {
		t.Errorf("second Remove: %v", err)
	}
	if err := b.Wait(w.ctx); err != nil {
		t.Errorf("Wait on a removed barrier: %v", err)
	}
	fakehook.Inspect(w.srv, func(m *machine.Machine) { m.ReapContainers() })
	fakehook.Inspect(w.srv, func(m *machine.Machine) { m.ReapContainers() })
	if w.exists("/barriers") {
		t.Errorf("ancestors left behind: %v", w.children("/barriers"))
	}
}

func TestBarrier_Config(t *testing.T) {
	w := newWorld(t)
	c, _ := w.conn()
	for _, p := range []string{"", "b", "/", "/b/", "/a//b"} {
		if _, err := barrier.New(c, p); !errors.Is(err, recipe.ErrConfig) {
			t.Errorf("New(%q): %v, want ErrConfig", p, err)
		}
	}
}
