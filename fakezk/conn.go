package fakezk

import (
	"context"
	"fmt"

	"github.com/zksim/zksim/internal/ctxcond"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/internal/sessionlog"
	"github.com/zksim/zksim/internal/zkclient"
	"github.com/zksim/zksim/zkapi"
)

// Conn is an in-process connection to a Server, with every interface of
// zkapi: Conn, ACLConn, TTLCreator and PersistentWatcher.
//
// Like go-zookeeper's client it moves on to the next replica at every
// reconnect (skipping one that is behind it), opens a new session by
// itself after learning that its session expired, reporting StateExpired
// for the old session id first, and re-sends the identities it added
// (AddAuth) on every new connection, before its watches.
//
// As go-zookeeper's, Create refuses a TTL mode before sending anything
// (TTL nodes go through CreateTTL, which refuses any other mode), and
// Multi refuses a TTL create; Multi's results are per op, success or
// failure. WaitSession returns the snapshot numbered seq+1 while the Conn
// remembers it (the last 64), otherwise the oldest it remembers, so a
// caller stepping through snapshots sees every transition (Disconnected,
// Expired for the old session, Connected for the new one); once the
// Closed snapshot is reached it returns that snapshot and ErrClosed at
// once. Close closes the session on the server (unless the Conn is
// disconnected, when it lingers until it expires) and ends every pending
// watch with ErrClosed; later calls, Close included, return ErrClosed.
type Conn interface {
	zkapi.ACLConn
	zkapi.TTLCreator
	zkapi.PersistentWatcher
}

// conn is a Server's Conn.
type conn struct {
	srv       *Server
	timeoutMs int64

	// guarded by srv.mu
	model        zkclient.Session[*watch, *pwatch] // session, replica, lastZxid, creds, watches
	disconnected bool
	closed       bool
	sess         sessionlog.Log
	changed      ctxcond.Var // broadcast at every session change
}

var _ Conn = (*conn)(nil)

// watch is a one-shot handle; ev is written before done is closed.
type watch struct {
	path string
	done chan struct{}
	ev   zkapi.Event
}

func (w *watch) Wait(ctx context.Context) (zkapi.Event, error) {
	select { // a fired watch answers even under a done ctx
	case <-w.done:
		return w.ev, nil
	default:
	}
	select {
	case <-w.done:
		return w.ev, nil
	case <-ctx.Done():
		return zkapi.Event{}, ctx.Err()
	}
}

func (w *watch) fire(ev zkapi.Event) {
	w.ev = ev
	close(w.done)
}

func (c *conn) openSession() {
	replica := c.model.Replica
	info, err := c.srv.m.CreateSession(replica, c.timeoutMs)
	if err != nil {
		panic(fmt.Sprintf("fakezk: invariant: Connect checked replica %d: %v", replica, err))
	}
	c.model.Opened(info.ID)
	c.srv.conns[info.ID] = c
	c.setState(zkapi.StateConnected)
	c.resendAuth()
}

// resendAuth adds the Conn's identities to a new connection, as
// go-zookeeper does (resendZkAuth) before anything else it sends.
func (c *conn) resendAuth() {
	for _, a := range c.model.Creds() {
		c.model.Send(c.srv.m, a)
	}
}

func (c *conn) setState(st zkapi.State) {
	c.sess.Push(zkapi.Session{ID: c.model.ID, State: st})
	c.changed.Broadcast()
}

// learnExpired: the old session is reported expired, its watches end, and
// a new session takes its place. A connected client first sees its
// connection drop, since the server closes it (ZooKeeper 3.8.0 through
// go-zookeeper reports Disconnected, Expired, then the new Connected).
func (c *conn) learnExpired() {
	states, watches, persistent := c.model.Expired(c.sess.Latest().State == zkapi.StateConnected)
	for _, st := range states {
		c.setState(st)
	}
	for _, w := range watches {
		w.fire(zkapi.Event{Type: zkapi.EventNotWatching, Path: w.path, Err: zkapi.ErrSessionExpired})
	}
	for _, p := range persistent {
		p.finish(zkapi.ErrSessionExpired)
	}
	delete(c.srv.conns, c.model.ID)
	c.openSession()
}

// reconnect resumes the session after a dropped connection, re-registering
// watches, or learns that it expired meanwhile; the policy picks the
// replica.
func (c *conn) reconnect() {
	err := c.model.Reconnect(func(replica int) error {
		return c.srv.m.Attach(c.model.ID, replica, c.model.LastZxid)
	})
	if err != nil {
		c.learnExpired()
		return
	}
	c.setState(zkapi.StateConnected)
	c.resendAuth()
	if sw, ok := c.model.Rewatch(); ok {
		c.model.Rewatched(c.model.Send(c.srv.m, sw))
	}
}

// dropped: the connection broke under a request; the client reconnects at
// once (the in-process link is otherwise healthy).
func (c *conn) dropped() {
	c.srv.m.Detach(c.model.ID)
	c.setState(zkapi.StateDisconnected)
	c.reconnect()
}

func (c *conn) notify(ev zkapi.Event) {
	for _, w := range c.model.Watches.Take(ev) {
		w.fire(ev)
	}
	for _, p := range c.model.Persistent.Match(ev) {
		p.push(ev)
	}
}

// Do sends one request (implementing zkclient.Transport): the single path
// every call takes.
func (c *conn) Do(ctx context.Context, op, path string, req proto.Request) (proto.Reply, zkapi.Watch, error) {
	var w *watch
	r, err := c.do(ctx, op, path, req, func(r proto.Reply) {
		if k, ok := zkclient.ReplyWatch(req, r.Err); ok {
			w = &watch{path: path, done: make(chan struct{})}
			c.model.Watches.Add(path, k, w)
		}
	})
	return r, watchOrNil(w), err
}

// do sends req and, when the server answered, runs replied with the
// server still locked, before any later event is delivered: a watch the
// request set is registered before it can fire.
func (c *conn) do(ctx context.Context, op, path string, req proto.Request, replied func(proto.Reply)) (proto.Reply, error) {
	if err := ctx.Err(); err != nil {
		return proto.Reply{}, proto.Wrap(op, path, err)
	}
	if err := zkclient.CheckPath(req); err != nil {
		return proto.Reply{}, proto.Wrap(op, path, err)
	}
	if err := zkclient.RefuseMultiCreates(req); err != nil {
		return proto.Reply{}, err
	}
	s := c.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case c.closed:
		return proto.Reply{}, proto.Wrap(op, path, zkapi.ErrClosed)
	case c.disconnected:
		return proto.Reply{}, proto.Wrap(op, path, zkapi.ErrConnectionLoss)
	}
	fault := Deliver
	if s.intercept != nil {
		fault = s.intercept(s.m, Request{Session: c.model.ID, Op: op, Path: path, Record: req})
	}
	if fault == LoseRequest {
		c.dropped()
		s.deliver()
		return proto.Reply{}, proto.Wrap(op, path, zkapi.ErrConnectionLoss)
	}
	r := c.model.Send(s.m, req)
	if fault == LoseReply || r.Err == zkapi.ErrConnectionLoss {
		c.dropped()
		s.deliver()
		return proto.Reply{}, proto.Wrap(op, path, zkapi.ErrConnectionLoss)
	}
	if r.Err == zkapi.ErrSessionExpired {
		c.learnExpired()
		s.deliver()
		return proto.Reply{}, proto.Wrap(op, path, zkapi.ErrSessionExpired)
	}
	if a, ok := req.(proto.AddAuth); ok {
		c.authDone(a, r.Err)
	}
	c.model.Replied(r)
	replied(r)
	s.deliver()
	return r, proto.Wrap(op, path, r.Err)
}

// authDone follows an auth: a failed one closes the connection (the
// client reconnects at once, to the same session), a good one is kept to
// be re-sent on every new connection.
func (c *conn) authDone(a proto.AddAuth, err error) {
	if err != nil {
		c.dropped()
		return
	}
	c.model.Authed(a)
}

func watchOrNil(w *watch) zkapi.Watch {
	if w == nil {
		return nil
	}
	return w
}
