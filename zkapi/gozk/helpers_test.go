package gozk_test

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/internal/ztree"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// TestMain checks that every test leaves no goroutine behind: Close must
// wait for go-zookeeper's goroutines, and the Conn's own one must end.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// standalone returns the addresses of the real ZooKeeper under test, or
// skips the test.
func standalone(t testing.TB) []string {
	t.Helper()
	return zktest.Standalone(t)
}

// testCtx bounds a real-server test so that a lost event fails it instead
// of hanging it.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// dial connects to the real server and closes the Conn when the test ends.
func dial(t testing.TB, servers []string, cfg gozk.Config) *gozk.Conn {
	t.Helper()
	if cfg.SessionTimeout == 0 {
		cfg.SessionTimeout = 4 * time.Second
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	c, err := gozk.DialContext(context.Background(), servers, cfg)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// newRoot creates a fresh persistent-sequential node for one test, so that
// runs never meet each other's nodes, and deletes its subtree afterwards
// through a Conn of its own (the test's Conns may be closed by then).
func newRoot(t testing.TB, servers []string) string {
	t.Helper()
	admin := dial(t, servers, gozk.Config{})
	ctx := testCtx(t)
	root, err := admin.Create(ctx, "/gozk-test-", nil, zkapi.PersistentSequential)
	if err != nil {
		t.Fatalf("create test root: %v", err)
	}
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := ztree.DeleteTree(cctx, admin, root); err != nil {
			t.Errorf("delete test root: %v", err)
		}
	})
	return root
}

// cutDialer is a zk.Dialer that can partition the client from the server:
// Disconnect closes every connection it made and refuses new ones until
// Reconnect.
type cutDialer struct {
	mu    sync.Mutex
	cut   bool
	conns []net.Conn
}

var errPartitioned = errors.New("test: partitioned")

func (d *cutDialer) Dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cut {
		return nil, errPartitioned
	}
	c, err := net.DialTimeout(network, addr, timeout)
	if err == nil {
		d.conns = append(d.conns, c)
	}
	return c, err
}

func (d *cutDialer) Disconnect() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cut = true
	for _, c := range d.conns {
		c.Close()
	}
	d.conns = nil
}

func (d *cutDialer) Reconnect() {
	d.mu.Lock()
	d.cut = false
	d.mu.Unlock()
}

// mustWait waits for a watch, failing the test on ctx's end.
func mustWait(t testing.TB, ctx context.Context, w zkapi.Watch) zkapi.Event {
	t.Helper()
	ev, err := w.Wait(ctx)
	if err != nil {
		t.Fatalf("Watch.Wait: %v", err)
	}
	return ev
}

// nextSession waits for the snapshot after s.
func nextSession(t testing.TB, ctx context.Context, c zkapi.Conn, s zkapi.Session) zkapi.Session {
	t.Helper()
	next, err := c.WaitSession(ctx, s.Seq)
	if err != nil {
		t.Fatalf("WaitSession(%d): %v (last %v)", s.Seq, err, s)
	}
	return next
}
