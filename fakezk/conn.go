package fakezk

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/zksim/zksim/fakezk/internal/ctxcond"
	"github.com/zksim/zksim/fakezk/machine"
	"github.com/zksim/zksim/internal/sessionlog"
	"github.com/zksim/zksim/internal/zkclient"
	"github.com/zksim/zksim/zkapi"
)

// Conn is an in-process zkapi.ACLConn on a Server. Like go-zookeeper's
// client it opens a new session by itself after learning that its session
// expired, reporting StateExpired for the old session id first, and
// re-sends the identities it added (AddAuth) on every new connection,
// before its watches.
type Conn struct {
	srv       *Server
	timeoutMs int64
	server    int // the server it prefers; it moves on if that one is behind

	// guarded by srv.mu
	id          int64
	lastZxid    int64
	partitioned bool
	closed      bool
	watches     zkclient.WatchTable[*watch]
	creds       []machine.AddAuth // every auth that succeeded, re-sent on reconnect
	pwatches    zkclient.PersistentTable[*pwatch]
	sess        sessionlog.Log
	changed     ctxcond.Var // broadcast at every session change
}

var (
	_ zkapi.ACLConn    = (*Conn)(nil)
	_ zkapi.TTLCreator = (*Conn)(nil)
)

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

func (c *Conn) openSession() {
	info, err := c.srv.m.CreateSession(c.server, c.timeoutMs)
	if err != nil {
		panic(fmt.Sprintf("fakezk: invariant: Connect checked server %d: %v", c.server, err))
	}
	c.id, c.lastZxid = info.ID, c.srv.m.ServerZxid(c.server)
	c.srv.conns[c.id] = c
	c.setState(zkapi.StateConnected)
	c.resendAuth()
}

// resendAuth adds the Conn's identities to a new connection, as
// go-zookeeper does (resendZkAuth) before anything else it sends.
func (c *Conn) resendAuth() {
	for _, a := range c.creds {
		c.srv.m.Do(c.id, a)
	}
}

func (c *Conn) setState(st zkapi.State) {
	c.sess.Push(zkapi.Session{ID: c.id, State: st})
	c.changed.Broadcast()
}

// learnExpired: the old session is reported expired, its watches end, and
// a new session takes its place. A connected client first sees its
// connection drop, since the server closes it (ZooKeeper 3.8.0 through
// go-zookeeper reports Disconnected, Expired, then the new Connected).
func (c *Conn) learnExpired() {
	if c.sess.Latest().State == zkapi.StateConnected {
		c.setState(zkapi.StateDisconnected)
	}
	c.setState(zkapi.StateExpired)
	for _, w := range c.watches.TakeAll() {
		w.fire(zkapi.Event{Type: zkapi.EventNotWatching, Path: w.path, Err: zkapi.ErrSessionExpired})
	}
	c.endPersistent(zkapi.ErrSessionExpired)
	delete(c.srv.conns, c.id)
	c.openSession()
}

// reconnect resumes the session after a dropped connection, re-registering
// watches, or learns that it expired meanwhile. Like a real client it
// skips servers that are behind what it has seen; the leader never is.
func (c *Conn) reconnect() {
	n := c.srv.m.Config().Followers + 1
	var err error
	for i := range n {
		server := (c.server + i) % n
		if err = c.srv.m.Attach(c.id, server, c.lastZxid); err == nil || errors.Is(err, zkapi.ErrSessionExpired) {
			c.server = server
			break
		}
	}
	if err != nil {
		c.learnExpired()
		return
	}
	c.setState(zkapi.StateConnected)
	c.resendAuth()
	if c.watches.Len()+c.pwatches.Len() > 0 {
		r := c.srv.m.Do(c.id, c.pwatches.Rewatch(c.watches.SetWatches(c.lastZxid)))
		c.lastZxid = max(c.lastZxid, r.Zxid)
	}
}

// dropped: the connection broke under a request; the client reconnects at
// once (the in-process link is otherwise healthy).
func (c *Conn) dropped() {
	c.srv.m.Detach(c.id)
	c.setState(zkapi.StateDisconnected)
	c.reconnect()
}

func (c *Conn) notify(ev zkapi.Event) {
	for _, w := range c.watches.Take(ev) {
		w.fire(ev)
	}
	for _, p := range c.pwatches.Match(ev) {
		p.push(ev)
	}
}

// Do sends one request (implementing zkclient.Transport): the single path every
// call takes.
func (c *Conn) Do(ctx context.Context, op, path string, req machine.Request) (machine.Reply, zkapi.Watch, error) {
	var w *watch
	r, err := c.do(ctx, op, path, req, func(r machine.Reply) {
		if k, ok := zkclient.ReplyWatch(req, r); ok {
			w = &watch{path: path, done: make(chan struct{})}
			c.watches.Add(path, k, w)
		}
	})
	return r, watchOrNil(w), err
}

// do sends req and, when the server answered, runs replied with the
// server still locked, before any later event is delivered: a watch the
// request set is registered before it can fire.
func (c *Conn) do(ctx context.Context, op, path string, req machine.Request, replied func(machine.Reply)) (machine.Reply, error) {
	if err := ctx.Err(); err != nil {
		return machine.Reply{}, zkapi.Wrap(op, path, err)
	}
	if err := zkclient.CheckPath(req); err != nil {
		return machine.Reply{}, zkapi.Wrap(op, path, err)
	}
	if err := zkclient.RefuseMultiCreates(req); err != nil {
		return machine.Reply{}, err
	}
	s := c.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case c.closed:
		return machine.Reply{}, zkapi.Wrap(op, path, zkapi.ErrClosed)
	case c.partitioned:
		return machine.Reply{}, zkapi.Wrap(op, path, zkapi.ErrConnectionLoss)
	}
	fault := Deliver
	if s.intercept != nil {
		fault = s.intercept(s.m, c.id, req)
	}
	if fault == LoseRequest {
		c.dropped()
		s.deliver()
		return machine.Reply{}, zkapi.Wrap(op, path, zkapi.ErrConnectionLoss)
	}
	r := s.m.Do(c.id, req)
	if fault == LoseReply || r.Err == zkapi.ErrConnectionLoss {
		c.dropped()
		s.deliver()
		return machine.Reply{}, zkapi.Wrap(op, path, zkapi.ErrConnectionLoss)
	}
	if r.Err == zkapi.ErrSessionExpired {
		c.learnExpired()
		s.deliver()
		return machine.Reply{}, zkapi.Wrap(op, path, zkapi.ErrSessionExpired)
	}
	if a, ok := req.(machine.AddAuth); ok {
		c.authDone(a, r.Err)
	}
	c.lastZxid = max(c.lastZxid, r.Zxid)
	replied(r)
	s.deliver()
	return r, zkapi.Wrap(op, path, r.Err)
}

// authDone follows an auth: a failed one closes the connection (the
// client reconnects at once, to the same session), a good one is kept to
// be re-sent on every new connection.
func (c *Conn) authDone(a machine.AddAuth, err error) {
	if err != nil {
		c.dropped()
		return
	}
	a.Data = slices.Clone(a.Data)
	c.creds = append(c.creds, a)
}

func watchOrNil(w *watch) zkapi.Watch {
	if w == nil {
		return nil
	}
	return w
}
