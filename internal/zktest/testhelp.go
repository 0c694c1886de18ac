package zktest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/ztree"
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
		if err := ztree.DeleteTree(ctx, admin, root); err != nil {
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

// DialN opens n sessions on addrs with cfg, as Dial does: one per
// contender, as separate processes would have.
func DialN(t testing.TB, ctx context.Context, addrs []string, n int, cfg gozk.Config) []zkapi.Conn {
	t.Helper()
	conns := make([]zkapi.Conn, n)
	for i := range conns {
		conns[i] = Dial(t, ctx, addrs, cfg)
	}
	return conns
}

// CloseAll closes conns now, before the test's cleanup would, so that the
// test can check that their ephemeral nodes went with them.
func CloseAll(t testing.TB, conns []zkapi.Conn) {
	t.Helper()
	for _, c := range conns {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
}

// Token reads a lease's fencing token (recipe.Lease and rwlock.Lease have
// the method; internal/zktest does not import them) or fails t, naming who.
func Token(t testing.TB, ctx context.Context, l interface {
	Token(context.Context) (int64, error)
}, who string) int64 {
	t.Helper()
	tok, err := l.Token(ctx)
	if err != nil {
		t.Fatalf("%s: Token: %v", who, err)
	}
	return tok
}

// Serving returns c once it has a leader, waiting up to a minute: an
// earlier test may have killed the leader, and a request sent before the
// election ends fails with connection loss.
func Serving(t testing.TB, c *Cluster) *Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if _, err := c.WaitLeader(ctx); err != nil {
		t.Fatal(err)
	}
	return c
}

// RestartIfDown restarts server i of c if it is not running, for the
// cleanup of a test that kills it: a test that fails between the kill and
// its own restart must not leave the next test a server short.
func RestartIfDown(t testing.TB, c *Cluster, i int) {
	if _, err := c.PID(i); errors.Is(err, ErrNotRunning) {
		if err := c.Restart(i); err != nil {
			t.Errorf("restoring server %d: %v", i, err)
		}
	}
}
