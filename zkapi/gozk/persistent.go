package gozk

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/internal/wire"
	"github.com/zksim/zksim/zkapi"
)

// go-zookeeper v1.0.4 has no addWatch, removeWatches or setWatches2, and
// no way to send a request it does not know. A Conn made by Dial reaches
// them anyway through the connection go-zookeeper reads and writes: its
// dialer wraps each TCP connection in a shimConn, which writes those
// requests between go-zookeeper's own frames (it writes each frame in one
// Write), takes their replies out of the stream before go-zookeeper reads
// it, and reads every watch event on the way past, for the persistent
// watches, leaving it for go-zookeeper too. A Conn made by FromConn has no
// shim: its AddWatch answers ErrUnimplemented. The shim speaks jute
// through the project's one codec (internal/wire): it reads each frame
// once, decodes its reply header (and a notification's event) and no
// more, and encodes its requests from the records of internal/proto.

// shimXidBase is where the shim's own xids count down from: go-zookeeper
// counts up from 1, and would need two billion requests to meet them.
const shimXidBase int32 = 0x7fffffff

// maxFrame bounds the frames the shim reads: far above any jute.maxbuffer
// a server uses, it only stops a corrupt length from allocating wildly.
const maxFrame = 1 << 30

// shim is a Conn's side of its shimConns: the persistent watches, the
// connection of the moment and the requests awaiting replies.
type shim struct {
	mu       sync.Mutex
	cur      *shimConn // nil while disconnected
	session  int64     // the session the watches belong to
	nextXid  int32
	pending  map[int32]chan shimReply
	watches  map[watchKey][]*pwatch
	lastZxid int64
}

type watchKey struct {
	path      string
	recursive bool
}

type shimReply struct {
	code int32
	err  error // the connection failed first
}

func newShim() *shim {
	return &shim{nextXid: shimXidBase, pending: map[int32]chan shimReply{}, watches: map[watchKey][]*pwatch{}}
}

// dialer wraps inner so that every connection go-zookeeper opens goes
// through the shim.
func (s *shim) dialer(inner zk.Dialer) zk.Dialer {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		nc, err := inner(network, address, timeout)
		if err != nil {
			return nil, err
		}
		sc := &shimConn{Conn: nc, s: s, r: bufio.NewReader(nc)}
		return sc, nil
	}
}

// shimConn is one TCP connection as go-zookeeper sees it.
type shimConn struct {
	net.Conn
	s         *shim
	r         *bufio.Reader
	wmu       sync.Mutex
	handshook bool
	// head and body are the frame go-zookeeper has yet to read (what is
	// left of its length prefix, then of its body); body is read into
	// frame, which is reused once go-zookeeper has read it all. It keeps
	// the largest frame's size, as go-zookeeper's own receive buffer
	// does.
	head  []byte
	body  []byte
	frame []byte
	pre   [4]byte
}

func (sc *shimConn) Write(b []byte) (int, error) {
	sc.wmu.Lock()
	defer sc.wmu.Unlock()
	return sc.Conn.Write(b)
}

// Read gives go-zookeeper the stream less the shim's replies, a frame at
// a time.
func (sc *shimConn) Read(p []byte) (int, error) {
	for len(sc.head)+len(sc.body) == 0 {
		body, err := sc.readFrame()
		if err != nil {
			sc.s.lost(sc)
			return 0, err
		}
		if sc.keep(body) {
			sc.head, sc.body = sc.pre[:], body
		}
	}
	n := copy(p, sc.head)
	sc.head = sc.head[n:]
	m := copy(p[n:], sc.body)
	sc.body = sc.body[m:]
	return n + m, nil
}

func (sc *shimConn) Close() error {
	sc.s.lost(sc)
	return sc.Conn.Close()
}

// readFrame reads one frame with the project's codec and returns its
// body; its length prefix stays in sc.pre for go-zookeeper.
func (sc *shimConn) readFrame() ([]byte, error) {
	if _, err := io.ReadFull(sc.r, sc.pre[:]); err != nil {
		return nil, err
	}
	body, err := wire.ReadBody(sc.r, sc.pre, sc.frame, maxFrame)
	if errors.Is(err, wire.ErrFrameSize) {
		return nil, fmt.Errorf("gozk: %w", err)
	} else if err != nil {
		return nil, err // as go-zookeeper would read it without the shim
	}
	sc.frame = body[:0]
	return body, nil
}

// keep looks at a frame body on its way to go-zookeeper: the
// handshake's answer, a watch event (kept), or a reply (the shim's own
// are not). Only the reply header is decoded, once, and a
// notification's event: the rest is go-zookeeper's to read. A frame the
// codec cannot read goes to go-zookeeper, which fails the connection as
// it would without the shim.
func (sc *shimConn) keep(body []byte) bool {
	if !sc.handshook {
		sc.handshook = true
		sc.s.connected(sc, body)
		return true
	}
	h, rec, err := wire.DecodeReply(body)
	switch {
	case err != nil:
		return true
	case h.Xid == wire.XidWatch:
		if ev, err := wire.DecodeEvent(rec); err == nil {
			sc.s.dispatch(ev)
		}
		return true
	case h.Xid > shimXidBase-1<<20:
		sc.s.replied(h.Xid, h.Zxid, h.Err)
		return false
	}
	if h.Zxid > 0 {
		sc.s.noteZxid(h.Zxid)
	}
	return true
}

// connected: the handshake's answer. Persistent watches of a resumed
// session are set again at once (setWatches2, before go-zookeeper sends
// anything); a new session means the old one, and its watches, are gone.
func (s *shim) connected(sc *shimConn, body []byte) {
	resp, _ := wire.DecodeConnectResponse(body) // unreadable: session 0
	id := resp.SessionID
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == 0 || (s.session != 0 && id != s.session) {
		s.endAll(zkapi.ErrSessionExpired)
	}
	if id == 0 {
		return
	}
	s.session, s.cur = id, sc
	if len(s.watches) == 0 {
		return
	}
	var persistent, recursive []string
	for k := range s.watches {
		if k.recursive {
			recursive = append(recursive, k.path)
		} else {
			persistent = append(persistent, k.path)
		}
	}
	sort.Strings(persistent)
	sort.Strings(recursive)
	sw := proto.SetWatches{RelativeZxid: s.lastZxid, Persistent: persistent, PersistentRecursive: recursive}
	// Its reply is dropped as one of the shim's, unawaited.
	sc.writeRequest(s.takeXid(), wire.OpSetWatches2, sw)
}

func (s *shim) takeXid() int32 {
	x := s.nextXid
	s.nextXid--
	return x
}

func (s *shim) noteZxid(z int64) {
	s.mu.Lock()
	s.lastZxid = max(s.lastZxid, z)
	s.mu.Unlock()
}

// lost: sc failed or closed; requests awaiting its replies fail.
func (s *shim) lost(sc *shimConn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != sc {
		return
	}
	s.cur = nil
	for xid, ch := range s.pending {
		ch <- shimReply{err: zkapi.ErrConnectionLoss}
		delete(s.pending, xid)
	}
}

func (s *shim) replied(xid int32, zxid int64, code int32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastZxid = max(s.lastZxid, zxid)
	if ch, ok := s.pending[xid]; ok {
		ch <- shimReply{code: code}
		delete(s.pending, xid)
	}
}

// dispatch queues an event on the handles it goes to, as ZooKeeper's
// client routes it: persistent ones on its path, recursive ones on its
// path and above but for NodeChildrenChanged.
func (s *shim) dispatch(ev zkapi.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.watches[watchKey{ev.Path, false}] {
		p.push(ev)
	}
	if ev.Type == zkapi.EventNodeChildrenChanged || !strings.HasPrefix(ev.Path, "/") {
		return
	}
	for path := ev.Path; ; {
		for _, p := range s.watches[watchKey{path, true}] {
			p.push(ev)
		}
		if path == "/" {
			return
		}
		i := strings.LastIndexByte(path, '/')
		path = path[:max(i, 1)]
	}
}

// endAll ends every persistent watch. Called with s.mu held.
func (s *shim) endAll(why error) {
	for k, ps := range s.watches {
		for _, p := range ps {
			p.finish(why)
		}
		delete(s.watches, k)
	}
}

// send writes a request on the current connection and waits for its
// reply code, or for the connection to fail (go-zookeeper closes a silent
// one), whatever the caller's ctx does, as every request of a Conn does
// once sent. before runs with s.mu held just before the request goes out.
func (s *shim) send(op wire.Op, body proto.Request, before func()) (int32, error) {
	s.mu.Lock()
	sc := s.cur
	if sc == nil {
		s.mu.Unlock()
		return 0, zkapi.ErrConnectionLoss
	}
	xid := s.takeXid()
	ch := make(chan shimReply, 1)
	s.pending[xid] = ch
	before()
	s.mu.Unlock()
	if err := sc.writeRequest(xid, op, body); err != nil {
		s.lost(sc)
	}
	r := <-ch
	return r.code, r.err
}

func (sc *shimConn) writeRequest(xid int32, op wire.Op, body proto.Request) error {
	_, err := sc.Write(wire.AppendRequest(nil, xid, op, body))
	return err
}

var _ zkapi.PersistentWatcher = (*Conn)(nil)

// AddWatch implements zkapi.PersistentWatcher, for a Conn made by Dial
// (see above); a Conn made by FromConn answers ErrUnimplemented. Like any
// request it waits for its outcome once sent, whatever ctx does, except
// that a Conn that loses its connection meanwhile reports
// ErrConnectionLoss (the watch may or may not have been set; it is not
// set again on reconnect).
func (c *Conn) AddWatch(ctx context.Context, path string, recursive bool) (zkapi.PersistentWatch, error) {
	if err := c.begin(ctx, "addwatch", path); err != nil {
		return nil, err
	}
	if c.shim == nil {
		return nil, proto.Wrap("addwatch", path, fmt.Errorf("%w: a Conn made by FromConn cannot send addWatch through go-zookeeper v1.0.4", zkapi.ErrUnimplemented))
	}
	if err := checkPath(path); err != nil {
		return nil, proto.Wrap("addwatch", path, err)
	}
	s := c.shim
	p := &pwatch{s: s, key: watchKey{path, recursive}, changed: make(chan struct{})}
	// Registered before it is sent: an event may come before the reply.
	code, err := s.send(wire.OpAddWatch, proto.AddWatch{Path: path, Recursive: recursive}, func() {
		s.watches[p.key] = append(s.watches[p.key], p)
	})
	if err == nil && code != 0 {
		err = proto.ErrorForCode(code)
	}
	if err != nil {
		s.mu.Lock()
		s.unregister(p)
		s.mu.Unlock()
		return nil, proto.Wrap("addwatch", path, err)
	}
	return p, nil
}

// checkPath is the check ZooKeeper's client makes (PathUtils.validatePath)
// for what go-zookeeper's own requests check too: absolute, no empty
// segment, no trailing slash.
func checkPath(path string) error {
	switch {
	case path == "/":
		return nil
	case !strings.HasPrefix(path, "/"), strings.HasSuffix(path, "/"), strings.Contains(path, "//"),
		strings.ContainsRune(path, 0):
		return fmt.Errorf("%w: invalid path %q", zkapi.ErrBadArguments, path)
	}
	return nil
}

// unregister removes p from the table; with s.mu held. It reports how
// many handles remain on p's path.
func (s *shim) unregister(p *pwatch) int {
	ps := slices.DeleteFunc(s.watches[p.key], func(q *pwatch) bool { return q == p })
	if len(ps) == 0 {
		delete(s.watches, p.key)
	} else {
		s.watches[p.key] = ps
	}
	return len(s.watches[watchKey{p.key.path, false}]) + len(s.watches[watchKey{p.key.path, true}])
}

// pwatch is a persistent watch of a Conn; its fields are guarded by its
// shim's mu, and changed is closed and replaced at every change.
type pwatch struct {
	s       *shim
	key     watchKey
	queue   []zkapi.Event
	end     error
	changed chan struct{}
}

func (p *pwatch) push(ev zkapi.Event) {
	p.queue = append(p.queue, ev)
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *pwatch) finish(why error) {
	if p.end == nil {
		p.end = why
		close(p.changed)
		p.changed = make(chan struct{})
	}
}

// Next implements zkapi.PersistentWatch.
func (p *pwatch) Next(ctx context.Context) (zkapi.Event, error) {
	for {
		p.s.mu.Lock()
		switch {
		case len(p.queue) > 0:
			ev := p.queue[0]
			p.queue = p.queue[1:]
			p.s.mu.Unlock()
			return ev, nil
		case p.end != nil:
			p.s.mu.Unlock()
			return zkapi.Event{Type: zkapi.EventNotWatching, Path: p.key.path, Err: p.end}, nil
		}
		ch := p.changed
		p.s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return zkapi.Event{}, ctx.Err()
		}
	}
}

// Remove implements zkapi.PersistentWatch.
func (p *pwatch) Remove(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return proto.Wrap("removewatches", p.key.path, err)
	}
	s := p.s
	s.mu.Lock()
	if p.end != nil {
		s.mu.Unlock()
		return nil
	}
	if s.unregister(p) > 0 {
		p.finish(zkapi.ErrNoWatcher)
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	rw := proto.RemoveWatches{Path: p.key.path, Type: proto.WatcherAny}
	code, err := s.send(wire.OpRemoveWatches, rw, func() {})
	if err == nil && code != 0 && code != proto.Code(zkapi.ErrNoWatcher) {
		err = proto.ErrorForCode(code)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if p.end == nil { // not removed: it still watches
			s.watches[p.key] = append(s.watches[p.key], p)
		}
		return proto.Wrap("removewatches", p.key.path, err)
	}
	p.finish(zkapi.ErrNoWatcher)
	return nil
}

// closeShim ends the persistent watches of a closed Conn.
func (c *Conn) closeShim() {
	if c.shim == nil {
		return
	}
	c.shim.mu.Lock()
	c.shim.endAll(zkapi.ErrClosed)
	c.shim.mu.Unlock()
}
