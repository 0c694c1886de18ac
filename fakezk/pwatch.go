package fakezk

import (
	"context"
	"errors"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/internal/ctxcond"
	"github.com/zksim/zksim/zkapi"
)

var _ zkapi.PersistentWatcher = (*conn)(nil)

// pwatch is a persistent watch handle of a Conn. Its fields are guarded
// by the server's mutex; changed is broadcast at every push and at its end.
type pwatch struct {
	c         *conn
	path      string
	recursive bool
	queue     []zkapi.Event
	end       error // why it ended; nil while it lives
	changed   ctxcond.Var
}

// AddWatch implements zkapi.PersistentWatcher.
func (c *conn) AddWatch(ctx context.Context, path string, recursive bool) (zkapi.PersistentWatch, error) {
	var p *pwatch
	_, err := c.do(ctx, "addwatch", path, proto.AddWatch{Path: path, Recursive: recursive}, func(r proto.Reply) {
		if r.Err == nil {
			p = &pwatch{c: c, path: path, recursive: recursive}
			c.model.Persistent.Add(path, recursive, p)
		}
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// endPersistent ends every persistent watch: the session is gone.
func (c *conn) endPersistent(why error) {
	for _, p := range c.model.Persistent.TakeAll() {
		p.finish(why)
	}
}

func (p *pwatch) push(ev zkapi.Event) {
	p.queue = append(p.queue, ev)
	p.changed.Broadcast()
}

func (p *pwatch) finish(why error) {
	if p.end == nil {
		p.end = why
		p.changed.Broadcast()
	}
}

// Next implements zkapi.PersistentWatch.
func (p *pwatch) Next(ctx context.Context) (zkapi.Event, error) {
	var ev zkapi.Event
	err := p.changed.Wait(ctx, &p.c.srv.mu, func() bool {
		switch {
		case len(p.queue) > 0:
			ev = p.queue[0]
			p.queue = p.queue[1:]
		case p.end != nil:
			ev = zkapi.Event{Type: zkapi.EventNotWatching, Path: p.path, Err: p.end}
		default:
			return false
		}
		return true
	})
	return ev, err
}

// Remove implements zkapi.PersistentWatch: removeWatches of any type on
// its path, unless another persistent handle of the Conn watches it.
func (p *pwatch) Remove(ctx context.Context) error {
	c := p.c
	c.srv.mu.Lock()
	if p.end != nil {
		c.srv.mu.Unlock()
		return nil
	}
	if c.model.Persistent.Remove(p.path, p.recursive, p) > 0 {
		p.finish(zkapi.ErrNoWatcher)
		c.srv.mu.Unlock()
		return nil
	}
	c.srv.mu.Unlock()
	_, err := c.do(ctx, "removewatches", p.path, proto.RemoveWatches{Path: p.path, Type: proto.WatcherAny}, func(proto.Reply) {
		p.finish(zkapi.ErrNoWatcher)
	})
	if errors.Is(err, zkapi.ErrNoWatcher) {
		return nil // gone already (a one-shot watch set on the path took its place and fired)
	}
	if err != nil {
		c.srv.mu.Lock()
		if p.end == nil { // not sent or refused: it still watches
			c.model.Persistent.Add(p.path, p.recursive, p)
		}
		c.srv.mu.Unlock()
	}
	return err
}
