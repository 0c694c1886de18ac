package fakezk

import (
	"context"
	"errors"

	"github.com/zksim/zksim/zkapi"
)

// Create implements zkapi.Conn.
func (c *Conn) Create(ctx context.Context, path string, data []byte, mode zkapi.CreateMode) (string, error) {
	if err := clientCheckPath(path, mode.IsSequential()); err != nil {
		return "", zkapi.Wrap("create", path, err)
	}
	r, _, err := c.do(ctx, "create", path, Create{Path: path, Data: data, Mode: mode}, nil)
	return r.Path, err
}

// Delete implements zkapi.Conn.
func (c *Conn) Delete(ctx context.Context, path string, version int32) error {
	_, _, err := c.do(ctx, "delete", path, Delete{Path: path, Version: version}, nil)
	return err
}

// Exists implements zkapi.Conn.
func (c *Conn) Exists(ctx context.Context, path string) (zkapi.Stat, bool, error) {
	st, ok, _, err := c.exists(ctx, path, false)
	return st, ok, err
}

// ExistsW implements zkapi.Conn.
func (c *Conn) ExistsW(ctx context.Context, path string) (zkapi.Stat, bool, zkapi.Watch, error) {
	return c.exists(ctx, path, true)
}

func (c *Conn) exists(ctx context.Context, path string, watch bool) (zkapi.Stat, bool, zkapi.Watch, error) {
	var rule watchRule
	if watch {
		rule = existsWatch
	}
	r, w, err := c.do(ctx, "exists", path, Exists{Path: path, Watch: watch}, rule)
	if errors.Is(err, zkapi.ErrNoNode) {
		return zkapi.Stat{}, false, w, nil
	}
	return r.Stat, err == nil, w, err
}

// Get implements zkapi.Conn.
func (c *Conn) Get(ctx context.Context, path string) ([]byte, zkapi.Stat, error) {
	r, _, err := c.do(ctx, "get", path, GetData{Path: path}, nil)
	return r.Data, r.Stat, err
}

// GetW implements zkapi.Conn.
func (c *Conn) GetW(ctx context.Context, path string) ([]byte, zkapi.Stat, zkapi.Watch, error) {
	r, w, err := c.do(ctx, "get", path, GetData{Path: path, Watch: true}, dataWatch)
	return r.Data, r.Stat, w, err
}

// Set implements zkapi.Conn.
func (c *Conn) Set(ctx context.Context, path string, data []byte, version int32) (zkapi.Stat, error) {
	r, _, err := c.do(ctx, "set", path, SetData{Path: path, Data: data, Version: version}, nil)
	return r.Stat, err
}

// Children implements zkapi.Conn.
func (c *Conn) Children(ctx context.Context, path string) ([]string, zkapi.Stat, error) {
	r, _, err := c.do(ctx, "children", path, GetChildren{Path: path}, nil)
	return r.Children, r.Stat, err
}

// ChildrenW implements zkapi.Conn.
func (c *Conn) ChildrenW(ctx context.Context, path string) ([]string, zkapi.Stat, zkapi.Watch, error) {
	r, w, err := c.do(ctx, "children", path, GetChildren{Path: path, Watch: true}, childWatch)
	return r.Children, r.Stat, w, err
}

// Multi implements zkapi.Conn. Results are per op, success or failure.
func (c *Conn) Multi(ctx context.Context, ops ...zkapi.Op) ([]zkapi.OpResult, error) {
	r, _, err := c.do(ctx, "multi", multiPath(ops), Multi{Ops: ops}, nil)
	return r.Results, err
}

// multiPath names a multi in errors by its first op's path.
func multiPath(ops []zkapi.Op) string {
	if len(ops) == 0 {
		return ""
	}
	switch o := ops[0].(type) {
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

// Sync implements zkapi.Conn; the fake has no followers, so it is a round
// trip.
func (c *Conn) Sync(ctx context.Context, path string) error {
	_, _, err := c.do(ctx, "sync", path, Sync{Path: path}, nil)
	return err
}

// Session implements zkapi.Conn.
func (c *Conn) Session() zkapi.Session {
	c.srv.mu.Lock()
	defer c.srv.mu.Unlock()
	return c.sess
}

// WaitSession implements zkapi.Conn.
func (c *Conn) WaitSession(ctx context.Context, seq uint64) (zkapi.Session, error) {
	for {
		c.srv.mu.Lock()
		sess, ch := c.sess, c.changed
		c.srv.mu.Unlock()
		if sess.Seq > seq {
			return sess, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return sess, ctx.Err()
		}
	}
}

// Close implements zkapi.Conn: the session is closed on the server (unless
// the Conn is partitioned, when it lingers until it expires) and every
// pending watch ends with ErrClosed.
func (c *Conn) Close() error {
	s := c.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	if !c.partitioned {
		for _, n := range s.m.CloseSession(c.id) {
			c.notify(n.Event)
		}
	}
	delete(s.conns, c.id)
	for _, w := range c.watches.TakeAll() {
		w.fire(zkapi.Event{Type: zkapi.EventNotWatching, Path: w.path, Err: zkapi.ErrClosed})
	}
	c.setState(zkapi.StateClosed)
	s.deliver()
	return nil
}
