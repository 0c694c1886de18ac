// Package locktest holds what the lock and rwlock tests against real
// servers share beyond zktest's fixtures: the contention workload's
// helpers (run contenders, wait for the queue, write fenced tokens,
// retry through connection loss) and its checks (orphan nodes, token
// reads). Most return errors instead of failing a test, because they run
// on the contenders' goroutines or in benchmarks that must free stuck
// players first.
package locktest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/zksim/zksim/zkapi"
)

// ReadInt reads the decimal number in the node at p after a sync, so that
// a lagging follower cannot hide the last write, retrying through
// connection loss. Empty data reads as 0.
func ReadInt(t testing.TB, ctx context.Context, c zkapi.Conn, p string) int64 {
	t.Helper()
	for {
		err := c.Sync(ctx, p)
		var b []byte
		if err == nil {
			b, _, err = c.Get(ctx, p)
		}
		if err == nil {
			n, err := parseInt(b)
			if err != nil {
				t.Fatalf("read %s: %v", p, err)
			}
			return n
		}
		if !errors.Is(err, zkapi.ErrConnectionLoss) || ctx.Err() != nil {
			t.Fatalf("read %s: %v", p, err)
		}
	}
}

// FormatInt is the data of a node holding n in decimal, as ReadInt and
// GetInt read it: the fencing tests store tokens so, readable in zkCli.
func FormatInt(n int64) []byte { return strconv.AppendInt(nil, n, 10) }

// parseInt reads data written by FormatInt. Empty data is 0, as in a node
// created before anyone wrote to it.
func parseInt(b []byte) (int64, error) {
	if len(b) == 0 {
		return 0, nil
	}
	return strconv.ParseInt(string(b), 10, 64)
}

// children lists dir after a sync, retrying through connection loss, with
// a watch on the listing; a missing directory (a container the server
// reaped) has no children, and the watch is then on its creation.
func children(ctx context.Context, c zkapi.Conn, dir string) ([]string, zkapi.Watch, error) {
	for {
		err := c.Sync(ctx, dir)
		var kids []string
		var w zkapi.Watch
		if err == nil {
			kids, _, w, err = c.ChildrenW(ctx, dir)
		}
		switch {
		case errors.Is(err, zkapi.ErrNoNode):
			_, _, w, err = c.ExistsW(ctx, dir)
			if err == nil {
				return nil, w, nil
			}
		case err == nil:
			return kids, w, nil
		}
		if !errors.Is(err, zkapi.ErrConnectionLoss) || ctx.Err() != nil {
			return nil, nil, fmt.Errorf("list %s: %w", dir, err)
		}
	}
}

// NoChildren fails t if dir has children: orphan nodes, when what names
// the moment of the check.
func NoChildren(t testing.TB, ctx context.Context, c zkapi.Conn, dir, when string) {
	t.Helper()
	kids, _, err := children(ctx, c, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(kids) != 0 {
		t.Errorf("%s: %s has orphan nodes %v", when, dir, kids)
	}
}

// RunAll runs work(ctx, i) for each i below n, each on a goroutine of its
// own (as clients in separate processes would run), and returns the
// errors of those that failed once all have ended. The first failure
// cancels the others' ctx.
func RunAll(ctx context.Context, n int, work func(ctx context.Context, i int) error) []error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			if errs[i] = work(ctx, i); errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	return slices.DeleteFunc(errs, func(err error) bool { return err == nil })
}

// WaitChildren waits, by watching dir, until it has at least n children:
// a contender's node is queued once it is listed, which no client-side
// call tells. It returns an error rather than failing a test, so that a
// benchmark can free its stuck players before it fails.
func WaitChildren(ctx context.Context, c zkapi.Conn, dir string, n int) error {
	for {
		kids, w, err := children(ctx, c, dir)
		if err != nil {
			return err
		}
		if len(kids) >= n {
			return nil
		}
		if _, err := w.Wait(ctx); err != nil {
			return fmt.Errorf("waiting for %d children of %s (have %v): %w", n, dir, kids, err)
		}
	}
}

// StoreMax raises v to x unless it already holds more: concurrent holders
// record the greatest fencing token written, whatever order they finish in.
func StoreMax(v *atomic.Int64, x int64) {
	for {
		old := v.Load()
		if x <= old || v.CompareAndSwap(old, x) {
			return
		}
	}
}

// RetryLoss calls fn until it ends in anything but connection loss, or ctx
// ends, counting each loss in lost: a client under contention carries on
// through a leader's election, and the test reports how often it had to.
func RetryLoss[T any](ctx context.Context, lost *atomic.Int64, fn func(context.Context) (T, error)) (T, error) {
	for {
		v, err := fn(ctx)
		if !errors.Is(err, zkapi.ErrConnectionLoss) || ctx.Err() != nil {
			return v, err
		}
		lost.Add(1)
	}
}

// GetInt reads the number FormatInt wrote to the node at p, and the
// node's version, retrying through connection loss (counted in lost).
func GetInt(ctx context.Context, c zkapi.Conn, p string, lost *atomic.Int64) (int64, int32, error) {
	var st zkapi.Stat
	b, err := RetryLoss(ctx, lost, func(ctx context.Context) (b []byte, err error) {
		b, st, err = c.Get(ctx, p)
		return b, err
	})
	if err != nil {
		return 0, 0, fmt.Errorf("get %s: %w", p, err)
	}
	n, err := parseInt(b)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", p, err)
	}
	return n, st.Version, nil
}

// FencedSet writes tok to the node at p through fenced (a lease's Fenced,
// which refuses once the lease is lost) at the version it read there, so
// that no other write comes between. The node must hold an earlier
// holder's token: a greater one means holders overlapped, and tok itself
// that a write of ours met connection loss but was applied. Connection
// losses are retried and counted in lost.
func FencedSet(ctx context.Context, c zkapi.Conn, fenced func(context.Context, ...zkapi.Op) ([]zkapi.OpResult, error), p string, tok int64, lost *atomic.Int64) error {
	for ctx.Err() == nil {
		prev, version, err := GetInt(ctx, c, p, lost)
		switch {
		case err != nil:
			return err
		case prev > tok:
			return fmt.Errorf("%s holds token %#x, above the holder's %#x", p, prev, tok)
		case prev == tok:
			return nil
		}
		_, err = fenced(ctx, zkapi.SetOp{Path: p, Data: FormatInt(tok), Version: version})
		switch {
		case err == nil:
			return nil
		case errors.Is(err, zkapi.ErrConnectionLoss):
			lost.Add(1) // applied or not: the next read tells
		default:
			return fmt.Errorf("fenced set of %s at version %d: %w", p, version, err)
		}
	}
	return ctx.Err()
}
