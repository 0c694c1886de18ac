package ensemble

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strconv"
	"testing"
	"time"
)

// fakePeers listens on two fake members' quorum and election ports and
// relays between them: what the real members' peer links pass through.
func fakePeers(t *testing.T) (*peerNet, []net.Listener) {
	t.Helper()
	ports := make([]int, 6)
	var lns []net.Listener
	for i := range 2 {
		for k := 1; k <= 2; k++ {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
			ports[3*i+k] = ln.Addr().(*net.TCPAddr).Port
			lns = append(lns, ln) // member i's quorum at 2i, election at 2i+1
		}
	}
	p, err := newPeerNet(2, ports)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	return p, lns
}

// link dials member from's relay of kind k to member to, and accepts
// the relayed connection on to's port.
func link(t *testing.T, p *peerNet, lns []net.Listener, from, to int, k relayKind) (net.Conn, net.Conn) {
	t.Helper()
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(p.port(from, to, k)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if k == electionPort {
		return c, nil // the relay dials on once it has the first message
	}
	s := accept(t, lns[2*to+int(k)])
	return c, s
}

func accept(t *testing.T, ln net.Listener) net.Conn {
	t.Helper()
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(5 * time.Second))
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// initialMessage is what a ZooKeeper 3.8 server sends first on an
// election connection: version, its id, its election address.
func initialMessage(version int64, sid int64, addr string) []byte {
	b := binary.BigEndian.AppendUint64(nil, uint64(version))
	b = binary.BigEndian.AppendUint64(b, uint64(sid))
	b = binary.BigEndian.AppendUint32(b, uint32(len(addr)))
	return append(b, addr...)
}

// A member that dials a higher one on its election port is called back
// at the address it advertises: the relay advertises the relay leading
// back instead, so the call-back is cut with the rest; what follows the
// first message, and an old protocol's bare id, pass unchanged.
func TestPeerNet_ElectionAdvertRewritten(t *testing.T) {
	p, lns := fakePeers(t)
	c, _ := link(t, p, lns, 0, 1, electionPort)
	c.Write(append(initialMessage(electionV2, 1, "127.0.0.1:1234|127.0.0.1:5678"), "vote"...))
	s := accept(t, lns[3])
	want := append(initialMessage(electionV2, 1, "127.0.0.1:"+strconv.Itoa(p.port(1, 0, electionPort))), "vote"...)
	got := make([]byte, len(want))
	s.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(s, got); err != nil || !bytes.Equal(got, want) {
		t.Errorf("member 1 received %q, %v; want %q", got, err, want)
	}

	c, _ = link(t, p, lns, 1, 0, electionPort)
	old := binary.BigEndian.AppendUint64(nil, 2)
	c.Write(old)
	s = accept(t, lns[1])
	got = make([]byte, len(old))
	s.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(s, got); err != nil || !bytes.Equal(got, old) {
		t.Errorf("a bare id arrived as %q, %v; want %q", got, err, old)
	}
}

// Isolate closes a member's relayed connections and hangs up on new
// ones until healed.
func TestPeerNet_Isolate(t *testing.T) {
	p, lns := fakePeers(t)
	c, _ := link(t, p, lns, 0, 1, quorumPort)
	p.isolate(1, true)
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("a link of the isolated member: read %v, want EOF", err)
	}
	d, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(p.port(1, 0, quorumPort)))
	if err != nil {
		t.Fatal(err)
	}
	d.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := d.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("a new link from the isolated member: read %v, want EOF", err)
	}
	d.Close()
	p.isolate(1, false)
	c, s := link(t, p, lns, 0, 1, quorumPort)
	c.Write([]byte("x"))
	s.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(s, make([]byte, 1)); err != nil {
		t.Errorf("a link after Heal: %v", err)
	}
}

// A hold delays what a member receives on the quorum links it opened,
// not what it sends.
func TestPeerNet_Hold(t *testing.T) {
	p, lns := fakePeers(t)
	c, s := link(t, p, lns, 0, 1, quorumPort)
	const d = time.Second
	began := time.Now()
	p.hold(0, began.Add(d))
	c.Write([]byte("ack"))
	s.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(s, make([]byte, 3)); err != nil || held(p, 0) <= 0 {
		t.Errorf("the held member's own bytes: %v after %v; want them while it is held", err, time.Since(began))
	}
	s.Write([]byte("commit"))
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(c, make([]byte, 6)); err != nil || time.Since(began) < d {
		t.Errorf("the leader's bytes to the held member: %v after %v; want them after %v", err, time.Since(began), d)
	}
}

func held(p *peerNet, m int) time.Duration {
	d, _ := p.heldFor(m)
	return d
}

// A hold released early lets the held bytes through at once.
func TestPeerNet_HoldReleased(t *testing.T) {
	p, lns := fakePeers(t)
	c, s := link(t, p, lns, 0, 1, quorumPort)
	p.hold(0, time.Now().Add(time.Minute))
	s.Write([]byte("commit"))
	time.AfterFunc(100*time.Millisecond, func() { p.hold(0, time.Now()) })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(c, make([]byte, 6)); err != nil {
		t.Errorf("the held bytes after the release: %v", err)
	}
}
