package netserver

import (
	"bufio"
	"errors"
	"io"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/internal/wire"
)

// conn is one client connection: a reader goroutine that decodes requests
// and applies them under the server's lock, and a writer goroutine that
// sends the queued frames in order.
type conn struct {
	s       *Server
	nc      net.Conn
	replica int
	ip      string

	// Under s.mu.
	session   int64
	lastHeard time.Time
	dead      bool // no more requests are served
	// readOnlyFlag: the client's ConnectRequest had the readOnly flag, so
	// ConnectResponses to it carry one.
	readOnlyFlag bool
	// watched holds every path a watch was asked for on this connection:
	// the Machine says which of them still hold one (four-letter words).
	watched map[string]struct{}
	// sasl is the connection's SASL exchange (sasl.go).
	sasl saslExchange

	qmu   sync.Mutex
	queue []outFrame
	wake  chan struct{}
}

// outFrame is a frame to send, not before at; close ends the connection
// once everything before it has been sent.
type outFrame struct {
	b     []byte
	at    time.Time
	close bool
}

func newConn(s *Server, nc net.Conn, replica int, ip string) *conn {
	return &conn{s: s, nc: nc, replica: replica, ip: ip, lastHeard: time.Now(), wake: make(chan struct{}, 1)}
}

func (c *conn) push(f outFrame) {
	c.qmu.Lock()
	c.queue = append(c.queue, f)
	c.qmu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *conn) send(b []byte) { c.push(outFrame{b: b}) }

// noteWatch records the paths on which req asks for watches.
func (c *conn) noteWatch(req proto.Request) {
	var paths []string
	switch r := req.(type) {
	case proto.Exists:
		paths = watchPath(r.Path, r.Watch)
	case proto.GetData:
		paths = watchPath(r.Path, r.Watch)
	case proto.GetChildren:
		paths = watchPath(r.Path, r.Watch)
	case proto.SetWatches:
		paths = slices.Concat(r.Data, r.Exist, r.Child, r.Persistent, r.PersistentRecursive)
	case proto.AddWatch:
		paths = []string{r.Path}
	}
	if len(paths) > 0 && c.watched == nil {
		c.watched = map[string]struct{}{}
	}
	for _, p := range paths {
		c.watched[p] = struct{}{}
	}
	c.pruneWatched()
}

// watchedSlack is how many paths c.watched may hold beyond twice its
// session's watches before pruneWatched drops those no longer watched.
const watchedSlack = 1024

// pruneWatched rebuilds c.watched with only the paths its session still
// watches, once it has grown well past them (a session watching a new
// sequential node at each turn would otherwise grow it for as long as its
// connection lives). Each rebuild costs the paths it keeps, at most half
// of those noted since the last: amortised O(1) a watch.
func (c *conn) pruneWatched() {
	m := c.s.m
	if len(c.watched) <= 2*m.SessionWatchCount(c.session)+watchedSlack {
		return
	}
	kept := make(map[string]struct{}, m.SessionWatchCount(c.session))
	for p := range c.watched {
		if m.Watching(c.session, p) {
			kept[p] = struct{}{}
		}
	}
	c.watched = kept
}

func watchPath(path string, watch bool) []string {
	if watch {
		return []string{path}
	}
	return nil
}

func (c *conn) sendNotification(n proto.Notification, delay time.Duration) {
	f := outFrame{b: wire.AppendNotification(nil, n)}
	if delay > 0 {
		f.at = time.Now().Add(delay)
	}
	c.push(f)
}

// closeAfterFlush ends the connection after the frames queued so far: a
// reply lost in flight is one never queued.
func (c *conn) closeAfterFlush() { c.push(outFrame{close: true}) }

// writeLoop sends queued frames until a close frame, a write error or the
// server's end. A client that stops reading is cut off after one tick's
// worth of blocked writing beyond its session timeout.
func (c *conn) writeLoop() {
	defer c.s.wg.Done()
	defer c.nc.Close()
	w := bufio.NewWriter(c.nc)
	for {
		c.qmu.Lock()
		batch := c.queue
		c.queue = nil
		c.qmu.Unlock()
		for _, f := range batch {
			if !c.waitUntil(f.at, w) {
				return
			}
			if f.close {
				w.Flush()
				return
			}
			c.nc.SetWriteDeadline(time.Now().Add(c.s.tick * 21))
			if _, err := w.Write(f.b); err != nil {
				return
			}
		}
		if w.Flush() != nil {
			return
		}
		select {
		case <-c.wake:
		case <-c.s.done:
			return
		}
	}
}

// waitUntil holds the writer until at (flushing what precedes a delayed
// frame first); false if the server closed meanwhile.
func (c *conn) waitUntil(at time.Time, w *bufio.Writer) bool {
	d := time.Until(at)
	if at.IsZero() || d <= 0 {
		return true
	}
	if w.Flush() != nil {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.s.done:
		return false
	}
}

// readLoop runs the handshake, then serves requests until the connection
// fails or the server ends it. Any malformed or oversized frame closes the
// connection and keeps the session, as ZooKeeper does, and so does a
// frame that does not fit in the frame budget.
func (c *conn) readLoop() {
	defer c.s.wg.Done()
	defer c.s.forget(c)
	r := bufio.NewReader(c.nc)
	if !c.handshake(r) {
		return
	}
	max := c.s.m.Config().MaxFrame
	var buf []byte
	for {
		frame, err := c.readFrame(r, buf, max)
		if err != nil {
			c.readFailed(err)
			return
		}
		req, err := wire.DecodeRequest(frame)
		buf = c.doneWith(frame)
		if err != nil {
			c.readFailed(err)
			return
		}
		if !c.s.handle(c, req) {
			return
		}
	}
}

func (c *conn) readFailed(err error) {
	if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
		return
	}
	c.s.logf("%s: closing connection: %v", c.nc.RemoteAddr(), err)
}

// handshake reads the ConnectRequest (or a four-letter word) within the
// sessionless timeout and answers it; false ends the connection.
func (c *conn) handshake(r *bufio.Reader) bool {
	c.nc.SetReadDeadline(time.Now().Add(c.s.sessionless))
	var prefix [4]byte
	if _, err := io.ReadFull(r, prefix[:]); err != nil {
		return false
	}
	if word, ok := wire.FourLetterWord(prefix); ok {
		c.nc.Write([]byte(c.s.fourLetter(c.replica, word, r)))
		return false
	}
	frame, err := c.readBody(r, prefix, nil, c.s.m.Config().MaxFrame)
	if err != nil {
		c.readFailed(err)
		return false
	}
	req, err := wire.DecodeConnect(frame)
	c.doneWith(frame)
	if err != nil {
		c.readFailed(err)
		return false
	}
	c.nc.SetReadDeadline(time.Time{})
	return c.s.connect(c, req)
}
