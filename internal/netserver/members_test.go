package netserver_test

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
)

// newEnsemble serves a fake ensemble of 1+followers members on loopback
// ports and returns their addresses in member order.
func newEnsemble(t *testing.T, followers int, tickMs int64) (*netserver.Server, []string) {
	t.Helper()
	// Every four-letter word, as scripts/zk.sh's servers answer them.
	return newEnsembleWith(t, netserver.Config{Machine: machine.Config{TickMillis: tickMs, Followers: followers}, FourLetterWords: []string{"*"}})
}

// newEnsembleWith is newEnsemble with a whole Config.
func newEnsembleWith(t *testing.T, cfg netserver.Config) (*netserver.Server, []string) {
	t.Helper()
	checkLeaks(t)
	followers := cfg.Machine.Followers
	srv, err := netserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var addrs []string
	var done []<-chan error
	for i := 0; i <= followers; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addrs = append(addrs, l.Addr().String())
		ch := make(chan error, 1)
		go func() { ch <- srv.ServeReplica(l, i) }()
		done = append(done, ch)
	}
	t.Cleanup(func() {
		srv.Close()
		for _, ch := range done {
			<-ch
		}
	})
	// An answer from each member shows its ServeReplica has registered it.
	for _, addr := range addrs {
		c := dialRaw(t, addr)
		c.write([]byte("srvr")) // the one word every server answers
		if b, _ := c.rest(5 * time.Second); !strings.HasPrefix(string(b), "Zookeeper version:") {
			t.Fatalf("srvr on %s: %q", addr, b)
		}
	}
	return srv, addrs
}

func memberStates(srv *netserver.Server) string {
	var states []string
	for _, mb := range srv.Members() {
		states = append(states, mb.State)
	}
	return strings.Join(states, " ")
}

func refused(addr string) bool {
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err == nil {
		nc.Close()
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}

// TestServer_StopFollower: a stopped follower closes its clients'
// connections and refuses new ones; its client resumes the same session
// on another member; the leader's clients keep their connections; started
// again, the member listens on the same port. Measured on 3.8.0 with
// scripts/zk.sh kill/restart (members.go).
func TestServer_StopFollower(t *testing.T) {
	srv, addrs := newEnsemble(t, 2, 500)
	onLeader := dialRaw(t, addrs[0])
	onLeader.handshake(10000, 0, nil)
	c := dialRaw(t, addrs[1])
	id, pw, _ := c.handshake(10000, 0, nil)
	if err := srv.StopMember(1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.frame(5 * time.Second); err != io.EOF {
		t.Fatalf("the stopped member's client read %v, want EOF", err)
	}
	if !refused(addrs[1]) {
		t.Fatal("a stopped member accepts connections")
	}
	if got := memberStates(srv); got != "leader stopped follower" {
		t.Fatalf("members %q", got)
	}
	if z, _ := onLeader.zxid(7); z == 0 {
		t.Fatal("the leader's client lost its connection")
	}
	moved := dialRaw(t, addrs[2])
	if got, _, timeout := moved.handshake(10000, id, pw); got != id || timeout == 0 {
		t.Fatalf("resuming on member 2: session %#x timeout %d, want %#x kept", got, timeout, id)
	}
	if err := srv.StopMember(1); !errors.Is(err, netserver.ErrMemberState) {
		t.Fatalf("stopping a stopped member: %v", err)
	}
	if err := srv.StartMember(1); err != nil {
		t.Fatal(err)
	}
	back := dialRaw(t, addrs[1])
	if got, _, _ := back.handshake(10000, 0, nil); got == 0 {
		t.Fatal("no session from the restarted member")
	}
}

// TestServer_StopLeader: stopping the leader elects another member and
// makes every member drop its clients (the real followers drop theirs
// while they elect); the sessions survive and resume.
func TestServer_StopLeader(t *testing.T) {
	srv, addrs := newEnsemble(t, 2, 500)
	c := dialRaw(t, addrs[2])
	id, pw, _ := c.handshake(10000, 0, nil)
	if err := srv.StopMember(0); err != nil {
		t.Fatal(err)
	}
	if got := memberStates(srv); got != "stopped leader follower" {
		t.Fatalf("members %q, want member 1 elected", got)
	}
	if _, err := c.frame(5 * time.Second); err != io.EOF {
		t.Fatalf("a follower's client read %v after the leader stopped, want EOF", err)
	}
	again := dialRaw(t, addrs[2])
	if got, _, _ := again.handshake(10000, id, pw); got != id {
		t.Fatalf("resumed session %#x, want %#x", got, id)
	}
	if err := srv.StartMember(0); err != nil {
		t.Fatal(err)
	}
	if got := memberStates(srv); got != "follower leader follower" {
		t.Fatalf("members %q: a restarted leader rejoins as a follower", got)
	}
}

// TestServer_NoQuorum: with one member of three running, it drops its
// clients, accepts connections but closes each without answering its
// connect request, answers four-letter words as a LOOKING server does,
// and no session expires, however long it lasts: virtual time pauses.
// When a majority is back the sessions resume.
func TestServer_NoQuorum(t *testing.T) {
	const tick = 20
	srv, addrs := newEnsemble(t, 2, tick)
	c := dialRaw(t, addrs[0])
	id, pw, timeout := c.handshake(2*tick, 0, nil) // the shortest timeout: 2 ticks
	var before int64
	srv.Inspect(func(m *machine.Machine) { before = m.Now() })
	for _, i := range []int{1, 2} {
		if err := srv.StopMember(i); err != nil {
			t.Fatal(err)
		}
	}
	if got := memberStates(srv); got != "looking stopped stopped" {
		t.Fatalf("members %q", got)
	}
	if _, err := c.frame(5 * time.Second); err != io.EOF {
		t.Fatalf("the client read %v after quorum was lost, want EOF", err)
	}
	refusedSession := dialRaw(t, addrs[0])
	refusedSession.write(connectReq(10000, 0, nil))
	if b, err := refusedSession.rest(5 * time.Second); err != io.EOF || len(b) != 0 {
		t.Fatalf("connect without quorum answered %q, %v; want the connection closed, no answer", b, err)
	}
	for word, want := range map[string]string{
		"srvr": "This ZooKeeper instance is not currently serving requests\n",
		"ruok": "imok",
		"isro": "null",
	} {
		w := dialRaw(t, addrs[0])
		w.write([]byte(word))
		if b, _ := w.rest(5 * time.Second); string(b) != want {
			t.Errorf("%s without quorum: %q, want %q", word, b, want)
		}
	}
	// Many times the session's timeout passes in real time.
	<-time.After(time.Duration(10*timeout) * time.Millisecond)
	var after int64
	var alive bool
	srv.Inspect(func(m *machine.Machine) { after, alive = m.Now(), m.Alive(id) })
	if !alive || after != before {
		t.Fatalf("without quorum: session alive %v, virtual time %d -> %d; want alive, paused", alive, before, after)
	}
	if err := srv.StartMember(2); err != nil {
		t.Fatal(err)
	}
	if got := memberStates(srv); got != "leader stopped follower" {
		t.Fatalf("members %q after quorum returned", got)
	}
	back := dialRaw(t, addrs[2])
	if got, _, _ := back.handshake(2*tick, id, pw); got != id {
		t.Fatalf("session %#x after quorum returned, want %#x", got, id)
	}
}

// TestHandler_Members: the control interface lists, stops and starts
// members, with 404, 409 and 400 for a missing member, a member already
// in that state, and a bad index.
func TestHandler_Members(t *testing.T) {
	srv, addrs := newEnsemble(t, 2, 500)
	hs := httptest.NewServer(srv.Handler(testToken))
	defer hs.Close()
	do := func(method, path string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, hs.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, step := range []struct {
		method, path string
		code         int
	}{
		{"POST", "/members/1/stop", 200},
		{"POST", "/members/1/stop", 409},
		{"POST", "/members/9/stop", 404},
		{"POST", "/members/x/stop", 400},
		{"POST", "/members/2/start", 409},
	} {
		if code, body := do(step.method, step.path); code != step.code {
			t.Errorf("%s %s: %d %q, want %d", step.method, step.path, code, body, step.code)
		}
	}
	want := "0 " + addrs[0] + " leader\n1 " + addrs[1] + " stopped\n2 " + addrs[2] + " follower\n"
	if _, body := do("GET", "/members"); body != want {
		t.Errorf("GET /members:\n%s\nwant:\n%s", body, want)
	}
	if code, _ := do("POST", "/members/1/start"); code != 200 || refused(addrs[1]) {
		t.Errorf("POST /members/1/start: %d, refused: %v", code, refused(addrs[1]))
	}
}
