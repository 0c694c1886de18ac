package sim

import (
	"context"
	"errors"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

var _ zkapi.PersistentWatcher = (*conn)(nil)

// pwatch is a persistent watch handle of a simulated client. Its events
// reach it when the scheduler delivers them (an evRecv step), like a
// one-shot watch's, and Next is a scheduling point while none is queued.
type pwatch struct {
	c         *Client
	id        int // when exploring: its index in c.pmade
	path      string
	recursive bool
	queue     []proto.Notification
	end       error // why it ended; nil while it lives
}

// AddWatch implements zkapi.PersistentWatcher: a request like any other.
func (cn *conn) AddWatch(ctx context.Context, path string, recursive bool) (zkapi.PersistentWatch, error) {
	c := cn.c
	r, _, err := cn.do(ctx, path, proto.AddWatch{Path: path, Recursive: recursive})
	if c.sim.hashing {
		c.foldReply(*r, err)
	}
	if err != nil {
		return nil, proto.Wrap("addwatch", path, err)
	}
	p := &pwatch{c: c, path: path, recursive: recursive}
	if c.sim.hashing {
		p.id = len(c.pmade)
		c.pmade = append(c.pmade, p)
	}
	if c.call.session != c.model.ID {
		// Set on a session that expired meanwhile: it will never fire.
		p.end = zkapi.ErrSessionExpired
		return p, nil
	}
	c.model.Persistent.Add(path, recursive, p)
	return p, nil
}

// ready reports whether Next can return without waiting.
func (p *pwatch) ready() bool { return len(p.queue) > 0 || p.end != nil }

func (p *pwatch) finish(why error) {
	if p.end == nil {
		p.end = why
	}
}

// endPersistent ends every persistent watch of c: its session is gone.
func (c *Client) endPersistent(why error) {
	for _, p := range c.model.Persistent.TakeAll() {
		p.finish(why)
	}
}

// Next implements zkapi.PersistentWatch: a scheduling point while no
// event is queued. Each event returned is a wakeup, which the herd
// checker counts.
func (p *pwatch) Next(ctx context.Context) (zkapi.Event, error) {
	p.c.spun = 0
	n, err := p.next(ctx)
	if c := p.c; c.sim.hashing {
		c.foldEvent(n.Event, n.Zxid, err)
	}
	return n.Event, err
}

func (p *pwatch) next(ctx context.Context) (proto.Notification, error) {
	c := p.c
	if !p.ready() {
		if err := ctx.Err(); err != nil {
			return proto.Notification{Zxid: -1}, err
		}
		for _, o := range c.sim.obs {
			o.Blocks(c)
		}
		cl := c.newCall(call{kind: callPWatch, pw: p, ctx: ctx})
		c.park(cl, stWait)
		if !p.ready() {
			return proto.Notification{Zxid: -1}, cl.err
		}
	}
	if len(p.queue) == 0 {
		return proto.Notification{Zxid: -1, Event: zkapi.Event{Type: zkapi.EventNotWatching, Path: p.path, Err: p.end}}, nil
	}
	n := p.queue[0]
	p.queue = p.queue[1:]
	if n.Zxid >= 0 {
		for _, o := range c.sim.obs {
			o.Woken(c, p.path, n.Zxid)
		}
	}
	return n, nil
}

// Remove implements zkapi.PersistentWatch: removeWatches of any type on
// the path, a request like any other, unless another handle of the
// client watches the path.
func (p *pwatch) Remove(ctx context.Context) error {
	c := p.c
	if p.end != nil {
		return nil
	}
	if c.model.Persistent.Remove(p.path, p.recursive, p) > 0 {
		p.finish(zkapi.ErrNoWatcher)
		return nil
	}
	r, _, err := c.conn.do(ctx, p.path, proto.RemoveWatches{Path: p.path, Type: proto.WatcherAny})
	if c.sim.hashing {
		c.foldReply(*r, err)
	}
	switch {
	case err == nil || errors.Is(err, zkapi.ErrNoWatcher):
		p.finish(zkapi.ErrNoWatcher)
		return nil
	case p.end == nil:
		c.model.Persistent.Add(p.path, p.recursive, p) // not removed: it still watches
	}
	return proto.Wrap("removewatches", p.path, err)
}
