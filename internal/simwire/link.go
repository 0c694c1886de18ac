package simwire

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"

	"github.com/zksim/zksim/internal/wire"
)

// A link is one connection of the real client to the simulator: a
// net.Pipe, whose client end the real client dialed. Two goroutines serve
// the simulator's end, both durably blocked (in the synctest sense) when
// idle: the reader queues each frame the client writes, answering pings
// at once while the connection is live (pings carry nothing a program
// sees, and a simulated connection that is up answers them), and the
// writer writes the frames the bridge sends, in order.
type link struct {
	server net.Conn
	kick   chan struct{} // the writer has frames to write (capacity 1)
	done   chan struct{} // closed by cut

	mu      sync.Mutex
	live    bool     // answer pings
	inbound [][]byte // frames read, not yet taken by the bridge
	out     [][]byte // frames to write
	ended   bool     // the reader stopped: the client closed, or cut
	cutOnce sync.Once
}

// xidPing and the ping's type open a ping frame's body.
const xidPing = -2

func newLink(server net.Conn) *link {
	l := &link{server: server, kick: make(chan struct{}, 1), done: make(chan struct{})}
	go l.read()
	go l.write()
	return l
}

// read queues the client's frames until the connection ends.
func (l *link) read() {
	defer func() {
		l.mu.Lock()
		l.ended = true
		l.mu.Unlock()
	}()
	var size [4]byte
	for {
		if _, err := io.ReadFull(l.server, size[:]); err != nil {
			return
		}
		n := binary.BigEndian.Uint32(size[:])
		if n > maxFrame {
			return // ZooKeeper closes such a connection (jute.maxbuffer)
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(l.server, body); err != nil {
			return
		}
		l.mu.Lock()
		if l.live && isPing(body) {
			l.queue(wire.AppendHeader(nil, xidPing, 0, 0))
		} else {
			l.inbound = append(l.inbound, body)
		}
		l.mu.Unlock()
	}
}

// maxFrame is ZooKeeper's default jute.maxbuffer with its slack.
const maxFrame = 0xfffff + 1024

func isPing(body []byte) bool {
	return len(body) >= 8 && int32(binary.BigEndian.Uint32(body)) == xidPing &&
		wire.Op(binary.BigEndian.Uint32(body[4:])) == wire.OpPing
}

// queue adds a frame for the writer; l.mu is held.
func (l *link) queue(frame []byte) {
	l.out = append(l.out, frame)
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// send queues a frame for the client.
func (l *link) send(frame []byte) {
	l.mu.Lock()
	l.queue(frame)
	l.mu.Unlock()
}

// write writes the queued frames until the link is cut; then, if the
// cut asked it to, it closes the pipe after the frames queued before it.
func (l *link) write() {
	for {
		select {
		case <-l.kick:
		case <-l.done:
			l.flush()
			l.server.Close()
			return
		}
		if !l.flush() {
			return
		}
	}
}

// flush writes the queued frames; false if the pipe is closed.
func (l *link) flush() bool {
	l.mu.Lock()
	out := l.out
	l.out = nil
	l.mu.Unlock()
	for _, f := range out {
		if _, err := l.server.Write(f); err != nil {
			return !errors.Is(err, io.ErrClosedPipe)
		}
	}
	return true
}

// take removes and returns the oldest frame read, if any.
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
	return len(l.inbound) > 0 || l.ended
}

func (l *link) isEnded() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ended
}

func (l *link) setLive(live bool) {
	l.mu.Lock()
	l.live = live
	l.mu.Unlock()
}

// cut ends the connection from the simulator's side once the frames
// queued before it are written: the client reads them, then EOF.
func (l *link) cut() {
	l.cutOnce.Do(func() { close(l.done) })
}
