package expire_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/expire"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/zktest"
)

// TestKill_Expires: closing the session from a second connection deletes
// its ephemerals and fires their watches at once, and the owner sees its
// session expired when it reconnects; a second Kill finds it gone. The
// fake server (zksim serve) always runs; the real ones when configured.
func TestKill_Expires(t *testing.T) {
	t.Run("serve", func(t *testing.T) {
		_, addr := zktest.ServeFake(t, netserver.Config{})
		testKill(t, []string{addr})
	})
	t.Run("standalone", func(t *testing.T) { testKill(t, zktest.Standalone(t)) })
	t.Run("ensemble", func(t *testing.T) {
		c := zktest.Ensemble(t)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := c.WaitLeader(ctx); err != nil {
			t.Fatal(err)
		}
		testKill(t, c.Addrs)
	})
}

func testKill(t *testing.T, addrs []string) {
	var capture expire.Capture
	// The longest timeout the servers allow (20 ticks), so that an expiry
	// within the waits below can only come from Kill.
	owner := connect(t, addrs, capture.Dial)
	observer := connect(t, addrs, nil)
	path := fmt.Sprintf("/expire-test-%d", time.Now().UnixNano())
	if _, err := owner.Create(path, nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	// The observer may be on a follower that has not applied the create
	// yet: sync first.
	if _, err := observer.Sync(path); err != nil {
		t.Fatal(err)
	}
	ok, _, watch, err := observer.ExistsW(path)
	if err != nil || !ok {
		t.Fatalf("ExistsW(%s) = %v, %v", path, ok, err)
	}
	sid := owner.SessionID()
	if cred, ok := capture.Credentials(sid); !ok || len(cred.Passwd) != 16 {
		t.Fatalf("Credentials(0x%x) = %+v, %v", sid, cred, ok)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := capture.Kill(ctx, sid); err != nil {
		t.Fatal(err)
	}
	// The watch has fired by the time closeSession is answered, so it is
	// waiting already; the timer only bounds a failing test.
	select {
	case e := <-watch:
		if e.Type != zk.EventNodeDeleted || e.Path != path {
			t.Fatalf("watch event %+v, want NodeDeleted %s", e, path)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no watch event 5s after Kill")
	}
	owner.waitExpired(t, 10*time.Second)
	if err := capture.Kill(ctx, sid); !errors.Is(err, expire.ErrSessionGone) {
		t.Fatalf("second Kill = %v, want ErrSessionGone", err)
	}
}

// client is a go-zookeeper connection that remembers whether its session
// expired.
type client struct {
	*zk.Conn
	expired atomic.Bool
	events  chan struct{} // a signal per state event, for waitExpired
}

func connect(t *testing.T, addrs []string, dial zk.Dialer) *client {
	t.Helper()
	c := &client{events: make(chan struct{}, 1)}
	forward := func(e zk.Event) {
		if e.State == zk.StateExpired {
			c.expired.Store(true)
		}
		select {
		case c.events <- struct{}{}:
		default:
		}
	}
	if dial == nil {
		dial = net.DialTimeout
	}
	conn, _, err := zk.Connect(addrs, 10*time.Second, zk.WithDialer(dial), zk.WithLogger(quiet{}), zk.WithEventCallback(forward))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	c.Conn = conn
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for conn.State() != zk.StateHasSession {
		select {
		case <-c.events:
		case <-ctx.Done():
			t.Fatalf("no session with %s: state %v", strings.Join(addrs, ","), conn.State())
		}
	}
	return c
}

// waitExpired waits until the client has seen its session expire.
func (c *client) waitExpired(t *testing.T, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for !c.expired.Load() {
		select {
		case <-c.events:
		case <-ctx.Done():
			t.Fatalf("session not expired after %v: state %v", d, c.State())
		}
	}
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}
