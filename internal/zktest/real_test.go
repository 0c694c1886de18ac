package zktest_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zksim/zksim/internal/zktest"
)

// These tests need real servers; see the package doc for the variables.

type quietLogger struct{}

func (quietLogger) Printf(string, ...interface{}) {}

// client is a go-zookeeper connection whose events all reach the test:
// go-zookeeper drops events when its own 6-slot channel is full, so they
// are copied into a larger one by callback.
type client struct {
	*zk.Conn
	events chan zk.Event
}

// connect opens a session; dial is net.DialTimeout unless given.
func connect(t *testing.T, addrs []string, timeout time.Duration, dial zk.Dialer) *client {
	t.Helper()
	if dial == nil {
		dial = net.DialTimeout
	}
	events := make(chan zk.Event, 1024)
	forward := func(e zk.Event) {
		select {
		case events <- e:
		default:
		}
	}
	conn, _, err := zk.Connect(addrs, timeout, zk.WithDialer(dial), zk.WithLogger(quietLogger{}), zk.WithEventCallback(forward))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	c := &client{Conn: conn, events: events}
	c.waitState(t, zk.StateHasSession, 10*time.Second)
	return c
}

// waitState consumes events until one reports state, failing after d.
func (c *client) waitState(t *testing.T, state zk.State, d time.Duration) {
	t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	var seen []string
	for {
		select {
		case e := <-c.events:
			if e.Type == zk.EventSession && e.State == state {
				return
			}
			seen = append(seen, e.State.String())
		case <-timer.C:
			t.Fatalf("no %v within %v; saw %v", state, d, seen)
		}
	}
}

func uniquePath(t *testing.T) string {
	name := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
	return fmt.Sprintf("/zktest-%s-%d", name, time.Now().UnixNano())
}

func TestSrvr_Standalone(t *testing.T) {
	addrs := zktest.Standalone(t)
	fields, err := zktest.Srvr(addrs[0], 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if fields["Mode"] != "standalone" {
		t.Fatalf("Mode = %q, want standalone (fields %v)", fields["Mode"], fields)
	}
}

// TestCluster_LeaderFailover: SIGKILL of the leader makes the remaining
// majority elect another (ZooKeeper Internals, "Leader Activation").
func TestCluster_LeaderFailover(t *testing.T) {
	c := zktest.EnsembleExclusive(t)
	if len(c.Addrs) < 3 {
		t.Skipf("%s has %d servers; failover needs 3 or more", c.Dir, len(c.Addrs))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	old, err := c.WaitLeader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	if err := c.Kill(old); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { zktest.RestartIfDown(t, c, old) })
	if _, err := c.PID(old); !errors.Is(err, zktest.ErrNotRunning) {
		t.Fatalf("PID(%d) after Kill = %v, want ErrNotRunning", old, err)
	}
	leader, err := c.WaitLeader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if leader == old {
		t.Fatalf("leader is still %d after it was killed", old)
	}
	t.Logf("server %d killed; server %d leads %v later", old, leader, time.Since(killed))
	if err := c.Restart(old); err != nil {
		t.Fatal(err)
	}
	if mode, err := c.Mode(old); err != nil || mode != "follower" {
		t.Fatalf("restarted server %d: Mode = %q, %v; want follower", old, mode, err)
	}
}

// TestProxy_ConnectionLoss: a stalled proxy leaves go-zookeeper's socket
// open but silent, so the client gives the connection up on its own after
// two thirds of the session timeout (docs/zk-semantics.md rule 19); a cut is
// seen at once.
func TestProxy_ConnectionLoss(t *testing.T) {
	addrs := zktest.Standalone(t)
	p := newProxy(t, addrs[0])
	c := connect(t, []string{p.Addr()}, 2*time.Second, nil)
	if _, err := c.Create(uniquePath(t), nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}

	p.Stall()
	stalled := time.Now()
	c.waitState(t, zk.StateDisconnected, 10*time.Second)
	if d := time.Since(stalled); d < 500*time.Millisecond {
		t.Fatalf("disconnected %v after Stall: the socket was closed, not silenced", d)
	}
	t.Logf("client gave up %v after Stall", time.Since(stalled))
	p.Resume()
	c.waitState(t, zk.StateHasSession, 10*time.Second)

	cut := time.Now()
	p.Disconnect()
	c.waitState(t, zk.StateDisconnected, 10*time.Second)
	t.Logf("client saw the cut after %v", time.Since(cut))
	c.waitState(t, zk.StateHasSession, 10*time.Second)
	if _, _, err := c.Exists("/"); err != nil {
		t.Fatalf("Exists after reconnecting: %v", err)
	}
	c.Close()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}
