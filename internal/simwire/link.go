package simwire

import (
	"encoding/binary"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/zksim/zksim/internal/wire"
)

// A link is one connection of the real client to the simulator, in
// memory: the net.Conn its dialer returns. What the client writes is cut
// into frames and queued for the bridge, except pings, answered at once
// while the connection is live (they carry nothing a program sees, and a
// simulated connection that is up answers them); what the bridge sends
// waits in a buffer the client reads. A read blocks on a channel made in
// the bubble, so a client waiting for data is durably blocked; its
// deadline is a timer on the bubble's clock. No goroutine serves a link.
type link struct {
	kick chan struct{} // the reader may go on (capacity 1)

	mu       sync.Mutex
	live     bool     // answer pings
	partial  []byte   // written, not yet a whole frame
	inbound  [][]byte // whole frames written, not yet taken by the bridge
	in       []byte   // sent by the bridge, not yet read
	cut      bool     // the simulator ended it: the client reads in, then EOF
	closed   bool     // the client closed it
	deadline time.Time
}

// maxFrame is ZooKeeper's default jute.maxbuffer with its slack: a
// client's longer frame ends the connection, as ZooKeeper closes it.
const maxFrame = 0xfffff + 1024

func newLink() *link { return &link{kick: make(chan struct{}, 1)} }

// wake lets a blocked Read look again; l.mu is held.
func (l *link) wake() {
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// Read implements net.Conn for the client.
func (l *link) Read(b []byte) (int, error) {
	for {
		l.mu.Lock()
		switch {
		case l.closed:
			l.mu.Unlock()
			return 0, net.ErrClosed
		case len(l.in) > 0:
			n := copy(b, l.in)
			l.in = l.in[n:]
			l.mu.Unlock()
			return n, nil
		case l.cut:
			l.mu.Unlock()
			return 0, io.EOF
		}
		deadline := l.deadline
		l.mu.Unlock()
		if err := l.block(deadline); err != nil {
			return 0, err
		}
	}
}

// block waits for a wake-up or the deadline.
func (l *link) block(deadline time.Time) error {
	if deadline.IsZero() {
		<-l.kick
		return nil
	}
	d := time.Until(deadline)
	if d <= 0 {
		return os.ErrDeadlineExceeded
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-l.kick:
		return nil
	case <-t.C:
		return os.ErrDeadlineExceeded
	}
}

// Write implements net.Conn for the client: it never blocks.
func (l *link) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || l.cut {
		return 0, net.ErrClosed
	}
	l.partial = append(l.partial, b...)
	for len(l.partial) >= 4 {
		n := binary.BigEndian.Uint32(l.partial)
		if n > maxFrame {
			l.cut = true
			l.wake()
			return len(b), nil
		}
		if len(l.partial) < 4+int(n) {
			break
		}
		body := append([]byte(nil), l.partial[4:4+n]...)
		l.partial = l.partial[4+n:]
		if l.live && isPing(body) {
			l.in = wire.AppendHeader(l.in, xidPing, 0, 0)
			l.wake()
			continue
		}
		l.inbound = append(l.inbound, body)
	}
	return len(b), nil
}

// Close implements net.Conn for the client.
func (l *link) Close() error {
	l.mu.Lock()
	l.closed = true
	l.wake()
	l.mu.Unlock()
	return nil
}

func (l *link) SetDeadline(t time.Time) error { return l.SetReadDeadline(t) }

func (l *link) SetReadDeadline(t time.Time) error {
	l.mu.Lock()
	l.deadline = t
	l.wake()
	l.mu.Unlock()
	return nil
}

// SetWriteDeadline implements net.Conn: writes never block.
func (l *link) SetWriteDeadline(time.Time) error { return nil }

func (l *link) LocalAddr() net.Addr  { return addr("client") }
func (l *link) RemoteAddr() net.Addr { return addr("zksim") }

type addr string

func (a addr) Network() string { return "zksim" }
func (a addr) String() string  { return string(a) }

// xidPing opens a ping frame's body, with the ping's type.
const xidPing = -2

func isPing(body []byte) bool {
	return len(body) >= 8 && int32(binary.BigEndian.Uint32(body)) == xidPing &&
		wire.Op(binary.BigEndian.Uint32(body[4:])) == wire.OpPing
}

// send queues a frame for the client to read.
func (l *link) send(frame []byte) {
	l.mu.Lock()
	l.in = append(l.in, frame...)
	l.wake()
	l.mu.Unlock()
}

// take removes and returns the oldest frame the client wrote, if any.
func (l *link) take() ([]byte, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.inbound) == 0 {
		return nil, false
	}
	f := l.inbound[0]
	l.inbound = l.inbound[1:]
	return f, true
}

// pending reports whether the bridge has something to do on the link:
// a frame to take, or the client closed it.
func (l *link) pending() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.inbound) > 0 || l.closed || l.cut
}

// isEnded reports whether the client closed the link or it was cut.
func (l *link) isEnded() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed || l.cut
}

func (l *link) setLive(live bool) {
	l.mu.Lock()
	l.live = live
	l.mu.Unlock()
}

// end ends the link from the simulator's side: the client reads what
// was sent before it, then EOF.
func (l *link) end() {
	l.mu.Lock()
	l.cut = true
	l.wake()
	l.mu.Unlock()
}
