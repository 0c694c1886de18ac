package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/zksim/zksim/expire"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// backend is a server the lifecycle tests run zklock against: serve
// (zksim's fake, in process) or the real ZooKeeper server that
// ZKSIM_ZK_STANDALONE names, which scripts/test.sh starts.
type backend struct {
	addr    string            // the server's client address
	fake    *netserver.Server // serve's; nil for the real server
	capture *expire.Capture   // the real server's way to expire a session
}

// onBackends runs test as subtest "serve", then as "real" against the
// real server ("real" skips, with a one-line reason, when
// ZKSIM_ZK_STANDALONE is unset). The real server is shared with other
// test packages running at once: tests take their paths from b.path.
func onBackends(t *testing.T, test func(t *testing.T, b backend)) {
	t.Helper()
	t.Run("serve", func(t *testing.T) {
		srv, addr := serveFake(t)
		test(t, backend{addr: addr, fake: srv})
	})
	t.Run("real", func(t *testing.T) {
		test(t, backend{addr: zktest.Standalone(t)[0], capture: &expire.Capture{}})
	})
}

// path is a lock path of t's own. On the real server it is deleted, with
// everything under it, when t ends; serve's goes with the server.
func (b backend) path(t *testing.T, name string) string {
	t.Helper()
	path := unique(name)
	if b.fake == nil {
		t.Cleanup(func() { deleteTree(t, b.addr, path) })
	}
	return path
}

// cfg is the connection config zklock is run with in process: on the
// real server, one that records the session's credentials for expire.
func (b backend) cfg() gozk.Config {
	if b.capture == nil {
		return gozk.Config{}
	}
	return gozk.Config{Dialer: b.capture.Dial}
}

// expire ends the session that owns node as the server does on expiry:
// serve's Expire, or on the real server package expire's Kill (the
// session must come from a zklock run with b.cfg), sent to the server
// itself so that it works with zklock's link stalled.
func (b backend) expire(t *testing.T, ctx context.Context, node string) {
	t.Helper()
	id := owner(t, ctx, b.addr, node)
	if b.fake != nil {
		if err := b.fake.Expire(id); err != nil {
			t.Fatal(err)
		}
		return
	}
	cred, ok := b.capture.Credentials(id)
	if !ok {
		t.Fatalf("no credentials captured for session %#x", id)
	}
	if err := expire.Kill(ctx, b.addr, cred); err != nil {
		t.Fatal(err)
	}
}

// proxy is a link to b that the test can stall, closed when t ends.
func (b backend) proxy(t *testing.T) *zktest.Proxy {
	t.Helper()
	p, err := zktest.NewProxy(b.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// mortal is an address for zklock and a func that makes the ensemble go
// away for it: serve closes; the real server, shared with other tests,
// stays, but the proxy zklock dials closes its listener and every
// connection, so that new dials are refused, as from a dead server.
func (b backend) mortal(t *testing.T) (string, func()) {
	t.Helper()
	if b.fake != nil {
		return b.addr, func() { b.fake.Close() }
	}
	p := b.proxy(t)
	return p.Addr(), func() { p.Close() }
}

// deleteTree deletes path and everything under it, on a session of its
// own; what is already gone is no error.
func deleteTree(t *testing.T, addr, path string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := gozk.DialContext(ctx, []string{addr}, gozk.Config{SessionTimeout: 10 * time.Second})
	if err != nil {
		t.Errorf("cleanup of %s: %v", path, err)
		return
	}
	defer conn.Close()
	if err := deleteUnder(ctx, conn, path); err != nil {
		t.Errorf("cleanup of %s: %v", path, err)
	}
}

func deleteUnder(ctx context.Context, conn zkapi.Conn, path string) error {
	names, _, err := conn.Children(ctx, path)
	if errors.Is(err, zkapi.ErrNoNode) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, name := range names {
		if err := deleteUnder(ctx, conn, path+"/"+name); err != nil {
			return err
		}
	}
	if err := conn.Delete(ctx, path, zkapi.AnyVersion); err != nil && !errors.Is(err, zkapi.ErrNoNode) {
		return err
	}
	return nil
}

// built is the zklock binary, built once for the package's tests.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
	out  []byte
}

// buildZklock builds the binary, for the tests that run it as a process.
func buildZklock(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "zklock-test")
		if built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "zklock")
		built.out, built.err = exec.Command("go", "build", "-o", built.bin, ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}
