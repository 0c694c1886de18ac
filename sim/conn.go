package sim

import (
	"context"
	"errors"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/zkapi"
)

// Conn is a simulated client's zkapi.Conn: every call is a scheduling
// point.
type Conn struct{ c *Client }

var _ zkapi.Conn = (*Conn)(nil)

// do sends one request and waits for the scheduler to deliver its fate.
func (cn *Conn) do(ctx context.Context, op, path string, req fakezk.Request) (fakezk.Reply, zkapi.Watch, error) {
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
	cl := &call{kind: callRequest, req: req, session: c.session}
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

// Create implements zkapi.Conn.
func (cn *Conn) Create(ctx context.Context, path string, data []byte, mode zkapi.CreateMode) (string, error) {
	r, _, err := cn.do(ctx, "create", path, fakezk.Create{Path: path, Data: data, Mode: mode})
	return r.Path, err
}

// Delete implements zkapi.Conn.
func (cn *Conn) Delete(ctx context.Context, path string, version int32) error {
	_, _, err := cn.do(ctx, "delete", path, fakezk.Delete{Path: path, Version: version})
	return err
}

// Exists implements zkapi.Conn.
func (cn *Conn) Exists(ctx context.Context, path string) (zkapi.Stat, bool, error) {
	st, ok, _, err := cn.exists(ctx, path, false)
	return st, ok, err
}

// ExistsW implements zkapi.Conn.
func (cn *Conn) ExistsW(ctx context.Context, path string) (zkapi.Stat, bool, zkapi.Watch, error) {
	return cn.exists(ctx, path, true)
}

func (cn *Conn) exists(ctx context.Context, path string, watch bool) (zkapi.Stat, bool, zkapi.Watch, error) {
	r, w, err := cn.do(ctx, "exists", path, fakezk.Exists{Path: path, Watch: watch})
	if errors.Is(err, zkapi.ErrNoNode) {
		return zkapi.Stat{}, false, w, nil
	}
	return r.Stat, err == nil, w, err
}

// Get implements zkapi.Conn.
func (cn *Conn) Get(ctx context.Context, path string) ([]byte, zkapi.Stat, error) {
	r, _, err := cn.do(ctx, "get", path, fakezk.GetData{Path: path})
	return r.Data, r.Stat, err
}

// GetW implements zkapi.Conn.
func (cn *Conn) GetW(ctx context.Context, path string) ([]byte, zkapi.Stat, zkapi.Watch, error) {
	r, w, err := cn.do(ctx, "get", path, fakezk.GetData{Path: path, Watch: true})
	return r.Data, r.Stat, w, err
}

// Set implements zkapi.Conn.
func (cn *Conn) Set(ctx context.Context, path string, data []byte, version int32) (zkapi.Stat, error) {
	r, _, err := cn.do(ctx, "set", path, fakezk.SetData{Path: path, Data: data, Version: version})
	return r.Stat, err
}

// Children implements zkapi.Conn.
func (cn *Conn) Children(ctx context.Context, path string) ([]string, zkapi.Stat, error) {
	r, _, err := cn.do(ctx, "children", path, fakezk.GetChildren{Path: path})
	return r.Children, r.Stat, err
}

// ChildrenW implements zkapi.Conn.
func (cn *Conn) ChildrenW(ctx context.Context, path string) ([]string, zkapi.Stat, zkapi.Watch, error) {
	r, w, err := cn.do(ctx, "children", path, fakezk.GetChildren{Path: path, Watch: true})
	return r.Children, r.Stat, w, err
}

// Multi implements zkapi.Conn.
func (cn *Conn) Multi(ctx context.Context, ops ...zkapi.Op) ([]zkapi.OpResult, error) {
	path := ""
	if len(ops) > 0 {
		path = opPath(ops[0])
	}
	r, _, err := cn.do(ctx, "multi", path, fakezk.Multi{Ops: ops})
	return r.Results, err
}

func opPath(op zkapi.Op) string {
	switch o := op.(type) {
	case zkapi.CreateOp:
		return o.Path
	case zkapi.DeleteOp:
		return o.Path
	case zkapi.SetOp:
		return o.Path
	case zkapi.CheckOp:
		return o.Path
	}
	return ""
}

// Sync implements zkapi.Conn.
func (cn *Conn) Sync(ctx context.Context, path string) error {
	_, _, err := cn.do(ctx, "sync", path, fakezk.Sync{Path: path})
	return err
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
	cl := &call{kind: callSession, ctx: ctx, seq: seq}
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
