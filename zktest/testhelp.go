package zktest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// SessionTimeout is Dial's default session timeout: long enough, against
// the scripts' 500 ms tick, that no session expires by itself on a busy
// test machine.
const SessionTimeout = 4 * time.Second

// Context bounds a test, so that a lost wake-up fails it instead of
// hanging it.
func Context(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

// Dial opens a session on addrs, closed when the test ends. Zero timeouts
// in cfg become SessionTimeout and a 20 s connect timeout.
func Dial(t testing.TB, ctx context.Context, addrs []string, cfg gozk.Config) *gozk.Conn {
	t.Helper()
	if cfg.SessionTimeout == 0 {
		cfg.SessionTimeout = SessionTimeout
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 20 * time.Second
	}
	conn, err := gozk.DialContext(ctx, addrs, cfg)
	if err != nil {
		t.Fatalf("DialContext(%v): %v", addrs, err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// Root creates a fresh persistent node prefix<seq> for one test, so that
// runs never meet each other's nodes, and deletes its subtree when the
// test ends.
func Root(t testing.TB, ctx context.Context, admin zkapi.Conn, prefix string) string {
	t.Helper()
	root, err := admin.Create(ctx, prefix, nil, zkapi.PersistentSequential)
	if err != nil {
		t.Fatalf("create test root: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := DeleteTree(ctx, admin, root); err != nil {
			t.Errorf("delete test root %s: %v", root, err)
		}
	})
	return root
}

// Create creates the persistent node p or fails t.
func Create(t testing.TB, ctx context.Context, c zkapi.Conn, p string) {
	t.Helper()
	if _, err := c.Create(ctx, p, nil, zkapi.Persistent); err != nil {
		t.Fatalf("create %s: %v", p, err)
	}
}

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
			if len(b) == 0 {
				return 0
			}
			n, err := strconv.ParseInt(string(b), 10, 64)
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

// Children lists dir after a sync, retrying through connection loss, with
// a watch on the listing; a missing directory (a container the server
// reaped) has no children, and the watch is then on its creation.
func Children(ctx context.Context, c zkapi.Conn, dir string) ([]string, zkapi.Watch, error) {
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
	kids, _, err := Children(ctx, c, dir)
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
