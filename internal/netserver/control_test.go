package netserver_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/proto"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
)

func newServer(t testing.TB) *netserver.Server {
	t.Helper()
	srv, err := netserver.New(netserver.Config{Machine: machine.Config{TickMillis: 100}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func TestApplyFaults_AllOrNothing(t *testing.T) {
	srv := newServer(t)
	err := srv.ApplyFaults("drop-reply:op=create,count=2; expire:session=0x999")
	if err == nil || !strings.Contains(err.Error(), "no live session 0x999") {
		t.Fatalf("ApplyFaults with an unknown session: %v", err)
	}
	if p := srv.Faults(); len(p) != 0 {
		t.Fatalf("a refused spec armed %q", p)
	}
	if err := srv.ApplyFaults("lose-reply:op=create,path=/l/,count=2;lose-request:session=0x10"); err != nil {
		t.Fatal(err)
	}
	want := "1 lose-reply:op=create,path=/l/,count=2|2 lose-request:session=0x10"
	if got := armed(srv); got != want {
		t.Errorf("Faults = %q, want %q", got, want)
	}
}

func TestApplyFaults_Errors(t *testing.T) {
	srv := newServer(t)
	for spec, want := range map[string]string{
		"":                             "empty fault spec",
		"drop-reply:op":                `argument "op" is not key=value`,
		"drop-reply:op=get,op=set":     `argument "op" given twice`,
		"drop-reply:count=0":           `count "0" is not a positive number`,
		"drop-reply:when=now":          `unknown argument "when"`,
		"drop-request:session=abc":     `session "abc" is not a session id`,
		"delay-watches":                "missing d=DURATION",
		"delay-watches:d=-1s":          `d "-1s" is not a duration`,
		"disconnect:session=0x100":     "no connected client has session 0x100",
		"abandon":                      "missing session=ID",
		"abandon:session=0x100":        "no live session 0x100",
		"expire:session=1,session=2":   `argument "session" given twice`,
		"drop-reply; frobnicate:x=1":   `unknown kind "frobnicate"`,
		"delay-watches:d=1s,session=0": `session "0" is not a session id`,
		"lose-reply:path=locks/":       `path "locks/" is not absolute: it must start with "/"`,
		"drop-request:op=get,path=x":   `path "x" is not absolute`,
	} {
		if err := srv.ApplyFaults(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ApplyFaults(%q) = %v, want an error containing %q", spec, err, want)
		}
	}
	if got := armed(srv); got != "" {
		t.Errorf("refused specs armed %q", got)
	}
}

// armed is srv's armed faults, "|" between them.
func armed(srv *netserver.Server) string {
	var lines []string
	for _, a := range srv.Faults() {
		lines = append(lines, a.String())
	}
	return strings.Join(lines, "|")
}

// TestServer_InterceptedExpiryClosesConnection: a session ended behind the
// server's back (an interceptor calling m.Expire while serving another
// session's request) loses its connection at once, as a session the real
// server expires does, so its client learns on reconnecting.
func TestServer_InterceptedExpiryClosesConnection(t *testing.T) {
	srv := newServer(t)
	addr, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a, aEvents := connect(t, addr.String())
	b, _ := connect(t, addr.String())
	aID := a.SessionID()
	srv.Intercept(func(m *machine.Machine, session int64, _ proto.Request) fakezk.Fault {
		if session == b.SessionID() && m.Alive(aID) {
			m.Expire(aID)
		}
		return fakezk.Deliver
	})
	if _, _, err := b.Exists("/"); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev := <-aEvents:
			if ev.State == zk.StateExpired {
				return
			}
		case <-timeout:
			t.Fatalf("A's client never learnt its session %#x expired", aID)
		}
	}
}

func connect(t testing.TB, addr string) (*zk.Conn, <-chan zk.Event) {
	t.Helper()
	conn, events, err := zk.Connect([]string{addr}, 2*time.Second, zk.WithLogger(quiet{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	for ev := range events {
		if ev.State == zk.StateHasSession {
			return conn, events
		}
	}
	t.Fatal("no session")
	return nil, nil
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

// TestServer_DelayWatchesKeepsOrder: a delayed notification holds back
// the replies queued behind it, so the client still sees the event before
// the reply to its later request (ZooKeeper's ordering guarantee), only
// later. The lower bound on the wait is the delay's own timer.
func TestServer_DelayWatchesKeepsOrder(t *testing.T) {
	srv := newServer(t)
	addr, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := connect(t, addr.String())
	b, _ := connect(t, addr.String())
	if _, err := b.Create("/x", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	_, _, watch, err := a.GetW("/x")
	if err != nil {
		t.Fatal(err)
	}
	const delay = 300 * time.Millisecond
	if err := srv.ApplyFaults("delay-watches:d=300ms,session=" + fmt.Sprint(a.SessionID())); err != nil {
		t.Fatal(err)
	}
	start := time.Now() // before the notification is queued, so before its hold starts
	if _, err := b.Set("/x", []byte("1"), -1); err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.Exists("/"); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < delay {
		t.Errorf("A's reply came after %v, before the %v its notification was held", waited, delay)
	}
	select {
	case ev := <-watch:
		if ev.Type != zk.EventNodeDataChanged || ev.Path != "/x" {
			t.Errorf("A's event = %+v, want NodeDataChanged /x", ev)
		}
	default:
		t.Error("A's reply overtook its held notification")
	}
}

// TestServer_DisconnectKeepsSession: Disconnect closes the connection
// only; the client reconnects to the same session, its ephemeral intact.
func TestServer_DisconnectKeepsSession(t *testing.T) {
	srv := newServer(t)
	addr, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c, events := connect(t, addr.String())
	id := c.SessionID()
	if _, err := c.Create("/e", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if err := srv.Disconnect(id); err != nil {
		t.Fatal(err)
	}
	sawDisconnect := false
	timeout := time.After(10 * time.Second)
	for !sawDisconnect || c.State() != zk.StateHasSession {
		select {
		case ev := <-events:
			sawDisconnect = sawDisconnect || ev.State == zk.StateDisconnected
		case <-timeout:
			t.Fatalf("no disconnect and reconnect (saw disconnect: %v, state %v)", sawDisconnect, c.State())
		}
	}
	if c.SessionID() != id {
		t.Fatalf("session %#x after the reconnect, want %#x kept", c.SessionID(), id)
	}
	if ok, st, err := c.Exists("/e"); err != nil || !ok || st.EphemeralOwner != id {
		t.Fatalf("ephemeral after the reconnect: %v %+v %v", ok, st, err)
	}
	if err := srv.Disconnect(0x999); err == nil {
		t.Error("Disconnect of an unknown session succeeded")
	}
}

// TestServer_AbandonKeepsOldSession: abandon closes the client's
// connection and refuses its session's resumption, so the client reports
// its session expired and starts a new one; the server keeps the old
// session, with its ephemeral node, until it times out unheard.
func TestServer_AbandonKeepsOldSession(t *testing.T) {
	srv, err := netserver.New(netserver.Config{Machine: machine.Config{TickMillis: 200}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	addr, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// The address twice, as an ensemble gives several: go-zookeeper waits
	// a second each time it wraps round its list. A 4 s timeout (20 ticks)
	// outlasts the client's move to a new session.
	c, events, err := zk.Connect([]string{addr.String(), addr.String()}, 4*time.Second, zk.WithLogger(quiet{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	for ev := range events {
		if ev.State == zk.StateHasSession {
			break
		}
	}
	old := c.SessionID()
	if _, err := c.Create("/e", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if err := srv.ApplyFaults(fmt.Sprintf("abandon:session=%#x", old)); err != nil {
		t.Fatal(err)
	}
	sawExpired := false
	timeout := time.After(10 * time.Second)
	for !sawExpired || c.State() != zk.StateHasSession {
		select {
		case ev := <-events:
			sawExpired = sawExpired || ev.State == zk.StateExpired
		case <-timeout:
			t.Fatalf("the client did not give its session up for a new one (saw expired: %v, state %v)", sawExpired, c.State())
		}
	}
	if c.SessionID() == old {
		t.Fatalf("the client resumed its abandoned session %#x", old)
	}
	var alive, owned bool
	srv.Inspect(func(m *machine.Machine) {
		_, st, ok := m.Node("/e")
		alive, owned = m.Alive(old), ok && st.EphemeralOwner == old
	})
	if !alive || !owned {
		t.Fatalf("after the client left it: old session alive %v, /e still its own %v", alive, owned)
	}
	left := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.WaitUntil(ctx, func(m *machine.Machine) bool { return !m.Alive(old) }); err != nil {
		t.Fatalf("the abandoned session %#x never expired", old)
	}
	t.Logf("old session expired %v after the client had a new one", time.Since(left).Round(10*time.Millisecond))
	if ok, _, err := c.Exists("/e"); err != nil || ok {
		t.Fatalf("/e after the old session expired: exists %v, %v", ok, err)
	}
	if err := srv.Abandon(old); err == nil {
		t.Error("Abandon of an expired session succeeded")
	}
}
