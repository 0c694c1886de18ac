package nemesis_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/faultname"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/nemesis"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/wire"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// rig is one client behind a Proxy and an admin client beside it, on
// zksim serve's server (100 ms ticks: sessions of 0.2 to 2 s).
type rig struct {
	ctx     context.Context
	addr    string
	admin   zkapi.Conn
	p       *nemesis.Proxy
	c       *gozk.Conn
	effects chan nemesis.Effect
}

func newRig(t *testing.T, timeout time.Duration) *rig {
	t.Helper()
	// A server caps a session's timeout at 20 ticks: a tick of 100 ms
	// unless the timeout asks for more.
	tick := max(100, timeout.Milliseconds()/20)
	_, addr := zktest.ServeFake(t, netserver.Config{Machine: machine.Config{TickMillis: tick}})
	r := &rig{ctx: zktest.Context(t, 20*time.Second), addr: addr, effects: make(chan nemesis.Effect, 16)}
	p, err := nemesis.NewProxy(nemesis.ProxyConfig{Servers: []string{addr}, Observe: func(e nemesis.Effect) { r.effects <- e }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	r.p = p
	r.admin = zktest.Dial(t, r.ctx, []string{addr}, gozk.Config{})
	r.c = zktest.Dial(t, r.ctx, []string{addr}, gozk.Config{SessionTimeout: timeout, Dialer: p.Dialer(nil)})
	return r
}

func (r *rig) exists(t *testing.T, path string) bool {
	t.Helper()
	_, ok, err := r.admin.Exists(r.ctx, path)
	if err != nil {
		t.Fatalf("exists %s: %v", path, err)
	}
	return ok
}

// effect returns the next fault the proxy reports.
func (r *rig) effect(t *testing.T) nemesis.Effect {
	t.Helper()
	select {
	case e := <-r.effects:
		return e
	case <-r.ctx.Done():
		t.Fatal("no effect reported")
	}
	return nemesis.Effect{}
}

// waitState waits until the client's session reaches state, and
// returns the states it passed through on the way.
func (r *rig) waitState(t *testing.T, from zkapi.Session, state zkapi.State) (zkapi.Session, []zkapi.State) {
	t.Helper()
	var seen []zkapi.State
	s := from
	for {
		var err error
		if s, err = r.c.WaitSession(r.ctx, s.Seq); err != nil {
			t.Fatalf("waiting for %v (saw %v): %v", state, seen, err)
		}
		seen = append(seen, s.State)
		if s.State == state {
			return s, seen
		}
	}
}

// A lost request never reaches the server: the client sees connection
// loss and the node is absent (ZooKeeper's "connection loss: the
// operation may or may not have been applied", here not).
func TestProxy_LoseRequest(t *testing.T) {
	r := newRig(t, 2*time.Second)
	r.p.LoseRequest()
	if _, err := r.c.Create(r.ctx, "/lost", nil, zkapi.Persistent); !errors.Is(err, zkapi.ErrConnectionLoss) {
		t.Fatalf("create through a lost request: %v, want connection loss", err)
	}
	want := nemesis.Effect{Kind: faultname.LoseRequest, Request: 1, Op: wire.OpCreate, Server: r.addr}
	if e := r.effect(t); e != want {
		t.Errorf("effect %+v, want %+v", e, want)
	}
	if r.exists(t, "/lost") {
		t.Error("the lost request was applied")
	}
	if _, err := r.c.Create(r.ctx, "/after", nil, zkapi.Persistent); err != nil {
		t.Errorf("the next request, after reconnecting: %v", err)
	}
}

// A lost reply: the create is applied, yet its client sees connection
// loss (the lost create of the recipes page's GUID advice).
func TestProxy_LoseReply(t *testing.T) {
	r := newRig(t, 2*time.Second)
	r.p.LoseReply()
	if _, err := r.c.Create(r.ctx, "/applied", nil, zkapi.Persistent); !errors.Is(err, zkapi.ErrConnectionLoss) {
		t.Fatalf("create whose reply is lost: %v, want connection loss", err)
	}
	want := nemesis.Effect{Kind: faultname.LoseReply, Request: 1, Op: wire.OpCreate, Server: r.addr}
	if e := r.effect(t); e != want {
		t.Errorf("effect %+v, want %+v", e, want)
	}
	if !r.exists(t, "/applied") {
		t.Error("the create whose reply was lost is absent")
	}
}

// Disconnect cuts the link; the client reconnects through the proxy with
// the same session, its ephemeral node untouched.
func TestProxy_Disconnect(t *testing.T) {
	r := newRig(t, 2*time.Second)
	if _, err := r.c.Create(r.ctx, "/eph", nil, zkapi.Ephemeral); err != nil {
		t.Fatal(err)
	}
	before := r.c.Session()
	if n := r.p.Disconnect(); n != 1 {
		t.Fatalf("Disconnect cut %d connections, want 1", n)
	}
	after, seen := r.waitState(t, before, zkapi.StateConnected)
	if seen[0] != zkapi.StateDisconnected || after.ID != before.ID {
		t.Errorf("went through %v to %v, want disconnected then connected with session %#x", seen, after, before.ID)
	}
	if !r.exists(t, "/eph") {
		t.Error("the ephemeral node went with the connection")
	}
}

// DisconnectAfterReply lets the request and its reply through, then
// cuts: the create succeeds, and the client reconnects.
func TestProxy_DisconnectAfterReply(t *testing.T) {
	r := newRig(t, 2*time.Second)
	before := r.c.Session()
	r.p.DisconnectAfterReply()
	if _, err := r.c.Create(r.ctx, "/kept", nil, zkapi.Persistent); err != nil {
		t.Fatalf("create before the cut: %v", err)
	}
	if e := r.effect(t); e.Kind != faultname.Disconnect || e.Request != 1 {
		t.Errorf("effect %+v, want a disconnect after request 1", e)
	}
	after, seen := r.waitState(t, before, zkapi.StateConnected)
	if seen[0] != zkapi.StateDisconnected || after.ID != before.ID {
		t.Errorf("went through %v to %v, want a reconnect to session %#x", seen, after, before.ID)
	}
}

// A stall longer than the session timeout expires the session by
// silence: the server deletes its ephemerals, and the client learns of
// the expiry when the stall ends.
func TestProxy_StallPastTimeout(t *testing.T) {
	r := newRig(t, time.Second)
	if _, err := r.c.Create(r.ctx, "/eph", nil, zkapi.Ephemeral); err != nil {
		t.Fatal(err)
	}
	before := r.c.Session()
	r.p.Stall(3 * time.Second)
	if !r.p.Stalled() {
		t.Fatal("not stalled")
	}
	after, seen := r.waitState(t, before, zkapi.StateExpired)
	if after.ID != before.ID {
		t.Errorf("expired %v, want session %#x (states %v)", after, before.ID, seen)
	}
	if r.exists(t, "/eph") {
		t.Error("the expired session's ephemeral node is still there")
	}
}

// A crash cuts the client off for good: its requests fail, and its
// session lingers on the server, ephemerals included, until it expires.
// go-zookeeper waits 1 s before each round of reconnecting, and a request
// made in that wait fails only at its end: the two requests below take
// up to 2 s, so the session's timeout is twice that (with 2 s, one run
// in twenty saw the session expire before the check that it lingers).
func TestProxy_Crash(t *testing.T) {
	r := newRig(t, 4*time.Second)
	if _, err := r.c.Create(r.ctx, "/eph", nil, zkapi.Ephemeral); err != nil {
		t.Fatal(err)
	}
	r.p.Crash()
	for i := range 2 { // the second after go-zookeeper tried to reconnect
		if _, _, err := r.c.Exists(r.ctx, "/eph"); !errors.Is(err, zkapi.ErrConnectionLoss) {
			t.Errorf("a crashed client's request %d: %v, want connection loss", i+1, err)
		}
	}
	if !r.exists(t, "/eph") {
		t.Error("the crashed client's session ended at once; it must linger until it expires")
	}
	_, ok, w, err := r.admin.ExistsW(r.ctx, "/eph")
	if err != nil {
		t.Fatalf("watch the crashed client's node: %v", err)
	}
	if !ok {
		return // expired already, on a loaded machine: the end we wait for below
	}
	if ev, err := w.Wait(r.ctx); err != nil || ev.Type != zkapi.EventNodeDeleted {
		t.Errorf("the crashed session's node: %v, %v; want it deleted when the session expires", ev, err)
	}
}

// The proxy listens once per server and maps each listener back to its
// server; it refuses to dial any other address.
func TestProxy_Routes(t *testing.T) {
	servers := []string{"127.0.0.1:1", "127.0.0.1:2"}
	p, err := nemesis.NewProxy(nemesis.ProxyConfig{Servers: servers})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, s := range servers {
		a, err := p.Addr(s)
		if got, ok := p.Server(a); err != nil || !ok || got != s {
			t.Errorf("Addr(%s) = %s, %v; Server of it %s, %v", s, a, err, got, ok)
		}
	}
	if _, err := p.Dialer(nil)("tcp", "127.0.0.1:3", time.Second); !errors.Is(err, nemesis.ErrUnknownServer) {
		t.Errorf("dial an unknown server: %v, want ErrUnknownServer", err)
	}
}
