package sim

import (
	"context"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/internal/zkclient"
	"github.com/zksim/zksim/zkapi"
)

// conn is a simulated client's zkapi.Conn (Client.Conn): every call is a
// scheduling point. The request methods come from zkclient.Calls over
// Do, which takes internal/proto records and so is no part of sim's API.
type conn struct {
	calls
	c *Client
}

var _ zkapi.Conn = (*conn)(nil)

// calls lets conn embed the shared request methods without exporting a
// field of an internal type.
type calls = zkclient.Calls

// Do sends one request and waits for the scheduler to deliver its fate
// (implementing zkclient.Transport).
func (cn *conn) Do(ctx context.Context, op, path string, req proto.Request) (proto.Reply, zkapi.Watch, error) {
	r, w, err := cn.do(ctx, path, req)
	if cn.c.sim.hashing {
		cn.c.foldReply(*r, err)
	}
	if w == nil { // not a typed nil in the interface
		return *r, nil, proto.Wrap(op, path, err)
	}
	return *r, w, proto.Wrap(op, path, err)
}

// noReply is what do answers a request that got no reply: never written.
var noReply proto.Reply

// do is Do before its result is wrapped and, when exploring, folded into
// the client's history. The reply is the call's, valid until the
// client's next call: a reply is 208 bytes, and a request went through
// four copies of it.
func (cn *conn) do(ctx context.Context, path string, req proto.Request) (*proto.Reply, *watch, error) {
	c := cn.c
	if err := ctx.Err(); err != nil {
		return &noReply, nil, err
	}
	if c.closed {
		return &noReply, nil, zkapi.ErrClosed
	}
	if err := zkclient.CheckPath(req); err != nil {
		return &noReply, nil, err
	}
	cl := c.newCall(call{kind: callRequest, req: req, session: c.model.ID})
	c.request()
	c.park(cl, stCall)
	if cl.err != nil {
		return &noReply, nil, cl.err
	}
	var w *watch
	if k, ok := zkclient.ReplyWatch(req, c.reply.Err); ok {
		w = c.newWatch()
		*w = watch{c: c, path: path, stray: cl.session != c.model.ID}
		if c.sim.hashing {
			w.id = len(c.made)
			c.made = append(c.made, w)
		}
		c.model.Watches.Add(path, k, w)
	}
	return &c.reply, w, c.reply.Err
}

// Session implements zkapi.Conn.
func (cn *conn) Session() zkapi.Session {
	cn.c.foldSession(nil)
	return cn.c.sess
}

// WaitSession implements zkapi.Conn: a scheduling point.
func (cn *conn) WaitSession(ctx context.Context, seq uint64) (zkapi.Session, error) {
	c := cn.c
	c.spun = 0
	if c.sess.Seq > seq {
		c.foldSession(nil)
		return c.sess, nil
	}
	if err := ctx.Err(); err != nil {
		c.foldSession(err)
		return c.sess, err
	}
	cl := c.newCall(call{kind: callSession, ctx: ctx, seq: seq})
	c.park(cl, stWait)
	c.foldSession(cl.err)
	return c.sess, cl.err
}

// Close implements zkapi.Conn. It is not a scheduling point: the session
// ends at once (if connected; otherwise it lingers until it expires).
func (cn *conn) Close() error {
	c := cn.c
	if c.closed {
		return nil
	}
	c.closed = true
	c.sim.touch(c.idx)
	if c.connected {
		c.sim.closes++
		for _, n := range c.sim.m.CloseSession(c.model.ID) {
			for _, w := range c.model.Watches.Take(n.Event) {
				w.fire(n.Event, n.Zxid)
			}
			for _, p := range c.model.Persistent.Match(n.Event) {
				p.queue = append(p.queue, n)
			}
		}
		c.sim.collect()
	}
	for _, w := range c.model.Watches.TakeAll() {
		w.fire(zkapi.Event{Type: zkapi.EventNotWatching, Path: w.path, Err: zkapi.ErrClosed}, -1)
	}
	c.endPersistent(zkapi.ErrClosed)
	c.connected = false
	c.setState(zkapi.StateClosed)
	c.sim.note(c.name + " close")
	return nil
}
