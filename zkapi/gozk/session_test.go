package gozk_test

import (
	"context"
	"errors"
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/expire"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

func TestDial_InvalidConfig(t *testing.T) {
	_, err := gozk.DialContext(context.Background(), []string{"127.0.0.1:1"}, gozk.Config{})
	if !errors.Is(err, gozk.ErrConfig) {
		t.Errorf("Dial with no SessionTimeout = %v, want ErrConfig", err)
	}
	_, err = gozk.DialContext(context.Background(), nil, gozk.Config{SessionTimeout: time.Second})
	if !errors.Is(err, gozk.ErrConfig) {
		t.Errorf("Dial with no servers = %v, want ErrConfig", err)
	}
}

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestDial_NoServer(t *testing.T) {
	_, err := gozk.DialContext(context.Background(), []string{freeAddr(t)}, gozk.Config{
		SessionTimeout: time.Second, ConnectTimeout: 50 * time.Millisecond,
	})
	if !errors.Is(err, zkapi.ErrConnectionLoss) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Dial = %v, want ErrConnectionLoss and DeadlineExceeded", err)
	}
}

func TestDialContext_Canceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := gozk.DialContext(ctx, []string{freeAddr(t)}, gozk.Config{SessionTimeout: time.Second})
	if !errors.Is(err, zkapi.ErrConnectionLoss) || !errors.Is(err, context.Canceled) {
		t.Errorf("DialContext = %v, want ErrConnectionLoss and Canceled", err)
	}
}

func TestDial_FirstSession(t *testing.T) {
	servers := standalone(t)
	c := dial(t, servers, gozk.Config{})
	s := c.Session()
	if s.State != zkapi.StateConnected || s.ID == 0 || s.ID != c.ZK().SessionID() || s.Seq != 1 {
		t.Errorf("session after Dial %v, want Connected #1 with go-zookeeper's ID %#x", s, c.ZK().SessionID())
	}
}

func TestFromConn_Basic(t *testing.T) {
	servers := standalone(t)
	root := newRoot(t, servers)
	ctx := testCtx(t)
	zc, events, err := zk.Connect(servers, 4*time.Second, zk.WithLogger(quiet{}))
	if err != nil {
		t.Fatal(err)
	}
	c := gozk.FromConn(zc, events)
	t.Cleanup(func() { c.Close() })
	s := c.Session()
	for s.State != zkapi.StateConnected {
		s = nextSession(t, ctx, c, s)
	}
	if s.ID != zc.SessionID() {
		t.Errorf("session %v, go-zookeeper's ID %#x", s, zc.SessionID())
	}
	p, err := c.Create(ctx, root+"/e", nil, zkapi.Ephemeral)
	if err != nil {
		t.Fatal(err)
	}
	if st, ok, err := c.Exists(ctx, p); err != nil || !ok || st.EphemeralOwner != s.ID {
		t.Errorf("Exists = %+v, %v, %v", st, ok, err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if s := c.Session(); s.State != zkapi.StateClosed {
		t.Errorf("session after Close %v", s)
	}
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

// TestSession_Expiry partitions a client for longer than its session
// timeout. The server expires the session (an observer sees its ephemeral
// go); on healing, go-zookeeper learns of the expiry and opens a new
// session on the same *zk.Conn (docs/zk-semantics.md rule 20). The Conn must report
// Disconnected, Expired for the old ID, then Connected with a new ID, and end
// pending watches with NotWatching and ErrSessionExpired.
func TestSession_Expiry(t *testing.T) {
	servers := standalone(t)
	for _, tc := range []struct {
		name string
		open func(*testing.T, *cutDialer) *gozk.Conn
	}{
		{"Dial", func(t *testing.T, d *cutDialer) *gozk.Conn {
			return dial(t, servers, gozk.Config{SessionTimeout: time.Second, Dialer: d.Dial})
		}},
		{"FromConn", func(t *testing.T, d *cutDialer) *gozk.Conn {
			zc, events, err := zk.Connect(servers, time.Second, zk.WithDialer(d.Dial), zk.WithLogger(quiet{}))
			if err != nil {
				t.Fatal(err)
			}
			c := gozk.FromConn(zc, events)
			t.Cleanup(func() { c.Close() })
			return c
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testExpiry(t, servers, tc.open)
		})
	}
}

func testExpiry(t *testing.T, servers []string, open func(*testing.T, *cutDialer) *gozk.Conn) {
	root := newRoot(t, servers)
	ctx := testCtx(t)
	d := &cutDialer{}
	c := open(t, d)
	observer := dial(t, servers, gozk.Config{})

	old := c.Session()
	for old.State != zkapi.StateConnected {
		old = nextSession(t, ctx, c, old)
	}
	eph, err := c.Create(ctx, root+"/e", nil, zkapi.Ephemeral)
	if err != nil {
		t.Fatal(err)
	}
	_, _, pending, err := c.ExistsW(ctx, root+"/never")
	if err != nil {
		t.Fatal(err)
	}
	_, ok, gone, err := observer.ExistsW(ctx, eph)
	if err != nil || !ok {
		t.Fatalf("observer ExistsW = %v, %v", ok, err)
	}

	d.Disconnect()
	disc := nextSession(t, ctx, c, old)
	if want := (zkapi.Session{ID: old.ID, State: zkapi.StateDisconnected, Seq: old.Seq + 1}); disc != want {
		t.Fatalf("after the cut: %v, want %v", disc, want)
	}
	// Requests while no server is reachable fail with ErrConnectionLoss
	// (go-zookeeper flushes them with ErrNoServer after each pass over the
	// servers).
	_, _, err = c.Exists(ctx, root)
	checkErr(t, "Exists while partitioned", err, zkapi.ErrConnectionLoss, "exists", root)
	// Only the server decides expiry; the observer sees it.
	if ev := mustWait(t, ctx, gone); ev != (zkapi.Event{Type: zkapi.EventNodeDeleted, Path: eph}) {
		t.Fatalf("observer: %v, want NodeDeleted %s", ev, eph)
	}
	d.Reconnect()

	checkReplaced(t, ctx, c, root, disc, pending)
}

// checkReplaced checks what follows snapshot from once the server has
// expired from's session: Expired for its ID, then Connected with a new ID;
// the pending watch ended; the Conn working on in the new session.
func checkReplaced(t *testing.T, ctx context.Context, c *gozk.Conn, root string, from zkapi.Session, pending zkapi.Watch) {
	t.Helper()
	var got []zkapi.Session
	for s := from; !s.Lost(from.ID) || s.State != zkapi.StateConnected; {
		s = nextSession(t, ctx, c, s)
		got = append(got, s)
	}
	newID := got[len(got)-1].ID
	want := []zkapi.Session{
		{ID: from.ID, State: zkapi.StateExpired, Seq: from.Seq + 1},
		{ID: newID, State: zkapi.StateConnected, Seq: from.Seq + 2},
	}
	if !reflect.DeepEqual(got, want) || newID == from.ID || newID == 0 {
		t.Errorf("snapshots after %v: %v, want %v with a new ID", from, got, want)
	}
	// go-zookeeper ends the old session's watches before it reconnects, so
	// the event is there by the time the new session is reported: a done
	// ctx still gets it.
	done, cancel := context.WithCancel(ctx)
	cancel()
	wantEv := zkapi.Event{Type: zkapi.EventNotWatching, Path: root + "/never", Err: zkapi.ErrSessionExpired}
	if ev, err := pending.Wait(done); ev != wantEv || err != nil {
		t.Errorf("pending watch: %v, %v; want %v", ev, err, wantEv)
	}
	eph, err := c.Create(ctx, root+"/e", nil, zkapi.Ephemeral)
	if err != nil {
		t.Fatal(err)
	}
	if st, _, err := c.Exists(ctx, eph); err != nil || st.EphemeralOwner != newID {
		t.Errorf("new ephemeral owner %#x (%v), want the new session %#x", st.EphemeralOwner, err, newID)
	}
}

// TestSession_KillSession expires the session while the client is
// connected, as package expire (after Curator) does: a second connection takes the
// session over with its credentials, so the server drops the client's
// connection, and closes it. The client reconnects to find it expired.
func TestSession_KillSession(t *testing.T) {
	servers := standalone(t)
	root := newRoot(t, servers)
	ctx := testCtx(t)
	var capture expire.Capture
	c := dial(t, servers, gozk.Config{Dialer: capture.Dial})
	observer := dial(t, servers, gozk.Config{})
	old := c.Session()
	eph, err := c.Create(ctx, root+"/e", nil, zkapi.Ephemeral)
	if err != nil {
		t.Fatal(err)
	}
	_, _, pending, err := c.ExistsW(ctx, root+"/never")
	if err != nil {
		t.Fatal(err)
	}
	_, _, gone, err := observer.ExistsW(ctx, eph)
	if err != nil {
		t.Fatal(err)
	}
	if err := capture.Kill(ctx, old.ID); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	if ev := mustWait(t, ctx, gone); ev != (zkapi.Event{Type: zkapi.EventNodeDeleted, Path: eph}) {
		t.Fatalf("observer: %v, want NodeDeleted %s", ev, eph)
	}
	disc := nextSession(t, ctx, c, old)
	if want := (zkapi.Session{ID: old.ID, State: zkapi.StateDisconnected, Seq: old.Seq + 1}); disc != want {
		t.Fatalf("after the kill: %v, want %v", disc, want)
	}
	checkReplaced(t, ctx, c, root, disc, pending)
}

// Closing the *zk.Conn behind the Conn's back closes the Conn once
// go-zookeeper has stopped.
func TestConn_ZKClosedDirectly(t *testing.T) {
	servers := standalone(t)
	c := dial(t, servers, gozk.Config{})
	ctx := testCtx(t)
	s := c.Session()
	c.ZK().Close()
	for s.State != zkapi.StateClosed {
		s = nextSession(t, ctx, c, s)
	}
	_, _, err := c.Exists(ctx, "/")
	checkErr(t, "Exists", err, zkapi.ErrClosed, "exists", "/")
	if err := c.Close(); err != nil {
		t.Errorf("Close after the zk.Conn closed: %v", err)
	}
}
