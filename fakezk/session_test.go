package fakezk_test

import (
	"context"
	"errors"
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/zkapi"
)

// ZK-SEMANTICS 19: the negotiated timeout is clamped to [2, 20] x tickTime.
func TestSession_TimeoutClamped(t *testing.T) {
	m, _ := fakezk.NewMachine(fakezk.Config{TickMillis: 500})
	for _, c := range []struct{ ask, want int64 }{{1, 1000}, {4000, 4000}, {60000, 10000}} {
		info, err := m.CreateSession(0, c.ask)
		if err != nil {
			t.Fatal(err)
		}
		if info.TimeoutMs != c.want {
			t.Errorf("asked %d ms, got %d, want %d", c.ask, info.TimeoutMs, c.want)
		}
	}
}

// ZK-SEMANTICS 8, 19, 20: only the server decides expiry, after the timeout
// without hearing from the client; ephemerals go in one transaction; the
// client learns on reconnect, sees Expired for the old id, its watches end
// with SessionExpired, and (like go-zookeeper) it continues on a new session.
func TestSession_ExpiresWhilePartitioned(t *testing.T) {
	srv := newServer(t, fakezk.Config{TickMillis: 1000})
	holder := connect(t, srv, fakezk.ConnOptions{SessionTimeoutMs: 4000})
	observer := connect(t, srv, fakezk.ConnOptions{})
	mustCreate(t, holder, "/a", zkapi.Ephemeral)
	mustCreate(t, holder, "/b", zkapi.Ephemeral)
	wa := existsW(t, observer, "/a")
	wb := existsW(t, observer, "/b")
	own := existsW(t, holder, "/zz")
	old := holder.Session()

	if err := srv.Partition(old.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := holder.Exists(ctx, "/a"); !errors.Is(err, zkapi.ErrConnectionLoss) {
		t.Fatalf("partitioned call: %v, want ConnectionLoss", err)
	}
	srv.Tick(3)
	if _, ok := fired(t, wa); ok {
		t.Fatal("session expired before its timeout")
	}
	srv.Tick(1)
	evA, okA := fired(t, wa)
	evB, okB := fired(t, wb)
	if !okA || !okB || evA.Type != zkapi.EventNodeDeleted || evB.Type != zkapi.EventNodeDeleted {
		t.Fatalf("observer saw %v %v, want both NodeDeleted", evA, evB)
	}
	if holder.Session().State != zkapi.StateDisconnected {
		t.Fatalf("holder learned of expiry before reconnecting: %v", holder.Session())
	}

	if err := srv.Heal(old.ID); err != nil {
		t.Fatal(err)
	}
	s := holder.Session()
	if s.ID == old.ID || s.State != zkapi.StateConnected || !s.Lost(old.ID) {
		t.Fatalf("after heal: %v, want a new connected session", s)
	}
	ev, ok := fired(t, own)
	if !ok || ev.Type != zkapi.EventNotWatching || !errors.Is(ev.Err, zkapi.ErrSessionExpired) {
		t.Fatalf("holder's own watch: %v (fired %v), want NotWatching/SessionExpired", ev, ok)
	}
}

// A connected client pings: time alone never expires it.
func TestSession_ConnectedNeverExpires(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	c := connect(t, srv, fakezk.ConnOptions{SessionTimeoutMs: 4000})
	mustCreate(t, c, "/e", zkapi.Ephemeral)
	srv.Tick(1000)
	if _, ok, _ := c.Exists(ctx, "/e"); !ok {
		t.Fatal("ephemeral of a connected session vanished")
	}
}

// WaitSession reports every change; Expire on a connected client reports
// Expired for the old id before the new session.
func TestSession_WaitSeesExpiry(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	c := connect(t, srv, fakezk.ConnOptions{})
	s0 := c.Session()
	if err := srv.Expire(s0.ID); err != nil {
		t.Fatal(err)
	}
	s1, err := c.WaitSession(ctx, s0.Seq)
	if err != nil {
		t.Fatal(err)
	}
	if !s1.Lost(s0.ID) {
		t.Fatalf("WaitSession after expiry: %v", s1)
	}
	if err := srv.Expire(s0.ID); !errors.Is(err, zkapi.ErrSessionExpired) {
		t.Fatalf("expiring a dead session: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.WaitSession(cctx, c.Session().Seq); !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitSession on a cancelled ctx: %v", err)
	}
}

func TestConn_Close(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	c := connect(t, srv, fakezk.ConnOptions{})
	other := connect(t, srv, fakezk.ConnOptions{})
	mustCreate(t, c, "/e", zkapi.Ephemeral)
	w := existsW(t, c, "/x")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, ok, _ := other.Exists(ctx, "/e"); ok {
		t.Fatal("Close left the session's ephemeral")
	}
	if _, err := c.Create(ctx, "/y", nil, zkapi.Persistent); !errors.Is(err, zkapi.ErrClosed) {
		t.Fatalf("call after Close: %v, want ErrClosed", err)
	}
	if ev, ok := fired(t, w); !ok || !errors.Is(ev.Err, zkapi.ErrClosed) || ev.Path != "/x" {
		t.Fatalf("pending watch after Close: %v %v", ev, ok)
	}
	if st := c.Session().State; st != zkapi.StateClosed {
		t.Fatalf("state after Close: %v", st)
	}
}

func TestConfig_Invalid(t *testing.T) {
	for _, cfg := range []fakezk.Config{
		{TickMillis: -1}, {MaxFrame: -1}, {ContainerCheckTicks: -1},
		{Followers: -1}, {Overflow: 7},
	} {
		if _, err := fakezk.NewMachine(cfg); err == nil {
			t.Errorf("NewMachine(%+v) accepted a bad config", cfg)
		}
	}
	srv := newServer(t, fakezk.Config{})
	if _, err := srv.Connect(fakezk.ConnOptions{SessionTimeoutMs: -5}); err == nil {
		t.Error("negative session timeout accepted")
	}
	if _, err := srv.Connect(fakezk.ConnOptions{Server: 1}); err == nil {
		t.Error("connect to a follower of a standalone server accepted")
	}
}
