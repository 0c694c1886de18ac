package sim

import (
	"context"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/zkapi"
)

// Conn is a simulated client's zkapi.Conn: every call is a scheduling
// point. The request methods come from fakezk.Calls over Do.
type Conn struct {
	fakezk.Calls
	c *Client
}

var _ zkapi.Conn = (*Conn)(nil)

// Do sends one request and waits for the scheduler to deliver its fate
// (implementing fakezk.Transport).
func (cn *Conn) Do(ctx context.Context, op, path string, req fakezk.Request) (fakezk.Reply, zkapi.Watch, error) {
	c := cn.c
	if err := ctx.Err(); err != nil {
		return fakezk.Reply{}, nil, zkapi.Wrap(op, path, err)
	}
	if c.closed {
		return fakezk.Reply{}, nil, zkapi.Wrap(op, path, zkapi.ErrClosed)
	}
	if err := fakezk.CheckClientPath(req); err != nil {
		return fakezk.Reply{}, nil, zkapi.Wrap(op, path, err)
	}
	cl := c.newCall(call{kind: callRequest, req: req, session: c.session})
	c.park(cl, stCall)
	if cl.err != nil {
		return fakezk.Reply{}, nil, zkapi.Wrap(op, path, cl.err)
	}
	r := cl.reply
	var w *watch
	if k, ok := fakezk.ReplyWatch(req, r); ok {
		w = &watch{c: c, path: path, stray: cl.session != c.session}
		c.watches.Add(path, k, w)
	}
	var zw zkapi.Watch
	if w != nil {
		zw = w
	}
	return r, zw, zkapi.Wrap(op, path, r.Err)
}

// Session implements zkapi.Conn.
func (cn *Conn) Session() zkapi.Session { return cn.c.sess }

// WaitSession implements zkapi.Conn: a scheduling point.
func (cn *Conn) WaitSession(ctx context.Context, seq uint64) (zkapi.Session, error) {
	c := cn.c
	if c.sess.Seq > seq {
		return c.sess, nil
	}
	if err := ctx.Err(); err != nil {
		return c.sess, err
	}
	cl := c.newCall(call{kind: callSession, ctx: ctx, seq: seq})
	c.park(cl, stWait)
	return c.sess, cl.err
}

// Close implements zkapi.Conn. It is not a scheduling point: the session
// ends at once (if connected; otherwise it lingers until it expires).
func (cn *Conn) Close() error {
	c := cn.c
	if c.closed {
		return nil
	}
	c.closed = true
	if c.connected {
		for _, n := range c.sim.m.CloseSession(c.session) {
			for _, w := range c.watches.Take(n.Event) {
				w.fire(n.Event, n.Zxid)
			}
		}
		c.sim.collect()
	}
	for _, w := range c.watches.TakeAll() {
		w.fire(zkapi.Event{Type: zkapi.EventNotWatching, Path: w.path, Err: zkapi.ErrClosed}, -1)
	}
	c.connected = false
	c.setState(zkapi.StateClosed)
	c.sim.note(c.name + " close")
	return nil
}
