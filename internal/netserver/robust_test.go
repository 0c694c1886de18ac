package netserver_test

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/wire"
)

// Robustness of the fake alone: hostile or broken clients get what the
// real server gives them (rawcases.golden has most of it), and none of
// them crashes the server, wedges it or leaks a goroutine.

// newFakeWith is newFake with a hook run before the server listens.
func newFakeWith(t testing.TB, cfg netserver.Config, before func(*netserver.Server)) (*netserver.Server, string) {
	t.Helper()
	srv, err := netserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	before(srv)
	addr, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, addr.String()
}

// expectClosed reads from c until the server closes it, and fails if
// anything arrives first.
func expectClosed(t *testing.T, c *rawConn, what string) {
	t.Helper()
	b, err := c.rest(replyWait)
	if len(b) > 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("%s: got %q and %v, want the connection closed with nothing sent", what, b, err)
	}
}

// serving checks that the server still opens sessions and answers.
func serving(t *testing.T, addr string) {
	t.Helper()
	c := dialRaw(t, addr)
	if sid, _, _ := c.handshake(4000, 0, nil); sid == 0 {
		t.Fatal("the server refused a new session")
	}
	c.zxid(5)
}

// TestServer_MaxClientCnxns: a connection beyond maxClientCnxns from one
// address is closed at once with nothing sent, handshake or not, and a
// freed slot serves again (NIOServerCnxnFactory.AcceptThread.doAccept).
func TestServer_MaxClientCnxns(t *testing.T) {
	checkLeaks(t)
	_, addr := newFake(t, netserver.Config{Machine: machine.Config{TickMillis: 500}, MaxClientCnxns: 2})
	a := dialRaw(t, addr)
	a.handshake(4000, 0, nil)
	b := dialRaw(t, addr) // sessionless connections count too
	b.write([]byte{0, 0})
	if c, err := tryDial(t, addr); err == nil {
		expectClosed(t, c, "a third connection")
	}
	a.nc.Close()
	deadline := time.Now().Add(5 * time.Second)
	for !getsSession(t, addr) {
		if time.Now().After(deadline) {
			t.Fatal("no connection is served after one of two closed")
		}
	}
}

// tryDial dials addr; a connection the server resets at once (SO_LINGER
// 0) may fail the dial itself.
func tryDial(t *testing.T, addr string) (*rawConn, error) {
	nc, err := net.DialTimeout("tcp", addr, replyWait)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { nc.Close() })
	return &rawConn{t: t, nc: nc, r: bufio.NewReader(nc)}, nil
}

// getsSession reports whether a new connection to addr gets a session.
func getsSession(t *testing.T, addr string) bool {
	c, err := tryDial(t, addr)
	if err != nil {
		return false
	}
	c.write(connectReq(4000, 0, nil))
	_, err = c.frame(replyWait)
	return err == nil
}

// TestServer_SessionlessConnectionClosed: a connection that does not
// complete its handshake is closed with nothing sent
// (zookeeper.nio.sessionlessCnxnTimeout), idle or inside a frame.
func TestServer_SessionlessConnectionClosed(t *testing.T) {
	checkLeaks(t)
	_, addr := newFakeWith(t, serverConfig(), func(s *netserver.Server) { netserver.SetSessionlessTimeout(s, 100*time.Millisecond) })
	expectClosed(t, dialRaw(t, addr), "an idle connection")
	c := dialRaw(t, addr)
	c.write(connectReq(4000, 0, nil)[:10])
	expectClosed(t, c, "a connection inside its connect request")
	serving(t, addr)
}

// TestServer_PipelinedAfterLostReply: requests pipelined behind one whose
// reply is lost get no reply either (the connection closes), the lost one
// is applied, the later ones are not, and the session lives on.
func TestServer_PipelinedAfterLostReply(t *testing.T) {
	checkLeaks(t)
	srv, addr := newFake(t, serverConfig())
	if _, err := srv.LoseReply(netserver.Match{Op: "create"}); err != nil {
		t.Fatal(err)
	}
	c := dialRaw(t, addr)
	sid, pw, _ := c.handshake(4000, 0, nil)
	c.write(cat(create(1, "/lost", "", 0), create(2, "/later", "", 0), getData(3, "/lost", false)))
	expectClosed(t, c, "the connection of a lost reply")
	d := dialRaw(t, addr)
	if id, _, _ := d.handshake(4000, sid, pw); id != sid {
		t.Fatalf("resume after a lost reply: session %#x, want %#x", id, sid)
	}
	d.write(cat(exists(1, "/lost", false), exists(2, "/later", false)))
	for xid, want := range []int32{0, -101} {
		b, err := d.frame(replyWait)
		if err != nil {
			t.Fatal(err)
		}
		if code := int32(binary.BigEndian.Uint32(b[12:])); code != want {
			t.Errorf("exists xid %d after the lost reply: code %d, want %d", xid+1, code, want)
		}
	}
}

// TestServer_ExpiredSessionDropsRequests: once its session expires a
// connection is closed with nothing sent (the real server sends no
// Expired event), and a reconnect is refused.
func TestServer_ExpiredSessionDropsRequests(t *testing.T) {
	checkLeaks(t)
	srv, addr := newFake(t, serverConfig())
	c := dialRaw(t, addr)
	sid, pw, _ := c.handshake(4000, 0, nil)
	if err := srv.Expire(sid); err != nil {
		t.Fatal(err)
	}
	c.write(getData(1, "/", false))
	expectClosed(t, c, "an expired session's connection")
	d := dialRaw(t, addr)
	if id, _, timeout := d.handshake(4000, sid, pw); id != 0 || timeout != 0 {
		t.Fatalf("resume an expired session: id %#x timeout %d, want the zeroed refusal", id, timeout)
	}
	expectClosed(t, d, "a refused resume")
}

// TestServer_StandaloneCheckSendsNoReply: ZooKeeper 3.8.0 never answers a
// check (opcode 13) that succeeds outside a multi: FinalRequestProcessor
// builds a SetDataResponse with a null Stat, whose serialization throws
// in NIOServerCnxn.sendResponse ("Destruction averted"). The check still
// takes a zxid and the connection stays open. (Not a differential case:
// on the real server that transaction breaks the next restart.)
func TestServer_StandaloneCheckSendsNoReply(t *testing.T) {
	checkLeaks(t)
	_, addr := newFake(t, serverConfig())
	c := dialRaw(t, addr)
	c.handshake(4000, 0, nil)
	c.write(create(1, "/c", "", 0))
	before, _ := c.zxid(2)
	c.write(req(3, wire.OpCheck, jb{}.str("/c").i32(0)))
	after, replies := c.zxid(4)
	if len(replies) != 0 || after != before+1 {
		t.Fatalf("check that succeeds: replies %x and zxid %d -> %d, want no reply and one zxid", replies, before, after)
	}
	c.write(req(5, wire.OpCheck, jb{}.str("/c").i32(3)))
	b, err := c.frame(replyWait)
	if err != nil || int32(binary.BigEndian.Uint32(b[12:])) != -103 {
		t.Fatalf("check that fails: %x %v, want BadVersion", b, err)
	}
}

// TestServer_AbruptDisconnects cuts a client's stream at every byte, in
// the handshake and in each request: the server keeps serving, sessions
// whose handshake completed live on, and every goroutine ends.
func TestServer_AbruptDisconnects(t *testing.T) {
	checkLeaks(t)
	srv, addr := newFake(t, serverConfig())
	stream := cat(connectReq(4000, 0, nil), create(1, "/a", "x", 1), getData(2, "/a", true),
		req(3, wire.OpMulti, jb{}.mh(wire.OpCheck, false, -1).str("/a").i32(0).mend()), setData(4, "/a", "y", -1))
	handshake := len(connectReq(4000, 0, nil))
	for cut := range len(stream) {
		c := dialRaw(t, addr)
		c.write(stream[:cut])
		if cut >= handshake {
			// Wait for the handshake so that the session exists.
			c.frame(replyWait)
		}
		c.nc.Close()
	}
	serving(t, addr)
	sessions := srv.Sessions()
	if min := len(stream) - handshake; len(sessions) < min {
		t.Errorf("%d sessions live after the cuts, want at least %d", len(sessions), min)
	}
}
