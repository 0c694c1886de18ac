package fakezk_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// docs/zk-semantics.md rule 19: the negotiated timeout is clamped to [2, 20] x tickTime.
func TestSession_TimeoutClamped(t *testing.T) {
	m, _ := machine.NewMachine(machine.Config{TickMillis: 500})
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

// docs/zk-semantics.md rules 8, 19, 20: only the server decides expiry, after the timeout
// without hearing from the client; ephemerals go in one transaction; the
// client learns on reconnect, sees Expired for the old id, its watches end
// with SessionExpired, and (like go-zookeeper) it continues on a new session.
func TestSession_ExpiresWhileDisconnected(t *testing.T) {
	srv := newServer(t, fakezk.Config{TickMillis: 1000})
	holder := connect(t, srv, fakezk.ConnOptions{SessionTimeoutMs: 4000})
	observer := connect(t, srv, fakezk.ConnOptions{})
	mustCreate(t, holder, "/a", zkapi.Ephemeral)
	mustCreate(t, holder, "/b", zkapi.Ephemeral)
	wa := existsW(t, observer, "/a")
	wb := existsW(t, observer, "/b")
	own := existsW(t, holder, "/zz")
	old := holder.Session()

	if err := srv.Disconnect(old.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := holder.Exists(ctx, "/a"); !errors.Is(err, zkapi.ErrConnectionLoss) {
		t.Fatalf("disconnected call: %v, want ConnectionLoss", err)
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

	if err := srv.Reconnect(old.ID); err != nil {
		t.Fatal(err)
	}
	s := holder.Session()
	if s.ID == old.ID || s.State != zkapi.StateConnected || !s.Lost(old.ID) {
		t.Fatalf("after reconnect: %v, want a new connected session", s)
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
// its connection dropping, then Expired for the old id, then the new
// session, as ZooKeeper 3.8.0 through go-zookeeper does (recorded in
// internal/conformance/testdata/scenarios/session-states.txt).
func TestSession_WaitSeesExpiry(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	c := connect(t, srv, fakezk.ConnOptions{})
	s0 := c.Session()
	if err := srv.Expire(s0.ID); err != nil {
		t.Fatal(err)
	}
	if got, want := steps(t, c, s0), "Disconnected Expired Connected(new)"; got != want {
		t.Fatalf("WaitSession after expiry: %s, want %s", got, want)
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

// A disconnected session that expires is learnt on Reconnect: WaitSession still
// steps through Expired for the old id before the new session, though the
// Conn makes both changes at once.
func TestSession_WaitSeesDisconnectedExpiry(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	c := connect(t, srv, fakezk.ConnOptions{})
	s0 := c.Session()
	for _, step := range []func() error{
		func() error { return srv.Disconnect(s0.ID) },
		func() error { return srv.Expire(s0.ID) },
		func() error { return srv.Reconnect(s0.ID) },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := steps(t, c, s0), "Disconnected Expired Connected(new)"; got != want {
		t.Fatalf("WaitSession after a disconnected expiry: %s, want %s", got, want)
	}
}

// steps follows c's session snapshots from from to the current one, one
// WaitSession at a time, as "State" words with "(new)" at an ID change.
func steps(t *testing.T, c zkapi.Conn, from zkapi.Session) string {
	t.Helper()
	var parts []string
	for last, cur := from, c.Session(); last.Seq < cur.Seq; {
		s, err := c.WaitSession(ctx, last.Seq)
		if err != nil {
			t.Fatalf("WaitSession(%d): %v", last.Seq, err)
		}
		if s.Seq != last.Seq+1 {
			t.Fatalf("WaitSession(%d) skipped to %v", last.Seq, s)
		}
		part := s.State.String()
		if s.ID != last.ID {
			part += "(new)"
		}
		parts = append(parts, part)
		last = s
	}
	return strings.Join(parts, " ")
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
	// A second Close, and a wait for a change after Closed, answer
	// ErrClosed at once, as through zkapi/gozk (see its Close).
	if err := c.Close(); !errors.Is(err, zkapi.ErrClosed) {
		t.Fatalf("second Close: %v, want ErrClosed", err)
	}
	if s, err := c.WaitSession(ctx, c.Session().Seq); !errors.Is(err, zkapi.ErrClosed) || s.State != zkapi.StateClosed {
		t.Fatalf("WaitSession after Close: %v, %v; want Closed and ErrClosed", s, err)
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
		{TickMillis: -1}, {MaxFrame: -1},
		{Followers: -1}, {Overflow: 7},
	} {
		if _, err := fakezk.NewServer(cfg); err == nil {
			t.Errorf("NewServer(%+v) accepted a bad config", cfg)
		}
	}
	srv := newServer(t, fakezk.Config{})
	if _, err := srv.Connect(fakezk.ConnOptions{SessionTimeoutMs: -5}); err == nil {
		t.Error("negative session timeout accepted")
	}
	if _, err := srv.Connect(fakezk.ConnOptions{Replica: 1}); err == nil {
		t.Error("connect to a follower of a standalone server accepted")
	}
}

// A multi holding a container create is refused before anything is sent,
// with no results, as zkapi/gozk refuses it (go-zookeeper v1.0.4 cannot
// send one; recorded from 3.8.0 in internal/conformance multi.txt).
func TestConn_MultiContainerRefused(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	c := connect(t, srv, fakezk.ConnOptions{})
	res, err := c.Multi(ctx, zkapi.CreateOp{Path: "/p"}, zkapi.CreateOp{Path: "/c", Mode: zkapi.Container})
	var oe *proto.OpError
	if !errors.Is(err, zkapi.ErrBadArguments) || !errors.As(err, &oe) || oe.Path != "/c" {
		t.Fatalf("Multi with a container create: %v, want BadArguments on /c", err)
	}
	if res != nil {
		t.Errorf("results %v, want none", res)
	}
	for _, p := range []string{"/p", "/c"} {
		if _, ok, _ := c.Exists(ctx, p); ok {
			t.Errorf("%s was created", p)
		}
	}
}

// TestMachine_RenewSessions: a new leader gives every session a whole
// timeout from its election, in virtual time, so a detached session
// expires exactly one timeout after the renewal, whatever it had left.
func TestMachine_RenewSessions(t *testing.T) {
	m, err := machine.NewMachine(machine.Config{TickMillis: 100})
	if err != nil {
		t.Fatal(err)
	}
	info, err := m.CreateSession(0, 200)
	if err != nil {
		t.Fatal(err)
	}
	m.Detach(info.ID)
	m.Tick() // 100 ms: due at 200 ms
	m.RenewSessions()
	if got := m.Tick(); len(got) != 0 || !m.Alive(info.ID) {
		t.Fatalf("at 200 ms, after a renewal at 100 ms: expired %v", got)
	}
	if got := m.Tick(); len(got) != 1 || got[0] != info.ID {
		t.Fatalf("at 300 ms, one timeout after the renewal: expired %v, want [%#x]", got, info.ID)
	}
}
