package fakezk

import (
	"context"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// Session implements zkapi.Conn.
func (c *conn) Session() zkapi.Session {
	c.srv.mu.Lock()
	defer c.srv.mu.Unlock()
	return c.sess.Latest()
}

// WaitSession implements zkapi.Conn, as Conn's doc says: as zkapi/gozk's
// Conn does, a caller stepping through snapshots sees every transition.
func (c *conn) WaitSession(ctx context.Context, seq uint64) (zkapi.Session, error) {
	var sess zkapi.Session
	var ok bool
	err := c.changed.Wait(ctx, &c.srv.mu, func() bool {
		sess, ok = c.sess.After(seq)
		return ok || sess.State == zkapi.StateClosed
	})
	if err == nil && !ok {
		err = zkapi.ErrClosed
	}
	return sess, err
}

// Close implements zkapi.Conn, as Conn's doc says (as zkapi/gozk's does).
func (c *conn) Close() error {
	s := c.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.closed {
		return proto.Wrap("close", "", zkapi.ErrClosed)
	}
	c.closed = true
	if !c.disconnected {
		for _, n := range s.m.CloseSession(c.model.ID) {
			c.notify(n.Event)
		}
	}
	delete(s.conns, c.model.ID)
	for _, w := range c.model.Watches.TakeAll() {
		w.fire(zkapi.Event{Type: zkapi.EventNotWatching, Path: w.path, Err: zkapi.ErrClosed})
	}
	c.endPersistent(zkapi.ErrClosed)
	c.setState(zkapi.StateClosed)
	s.deliver()
	return nil
}

// AddAuth implements zkapi.ACLConn.
func (c *conn) AddAuth(ctx context.Context, scheme string, auth []byte) error {
	_, _, err := c.Do(ctx, "addauth", "", proto.AddAuth{Scheme: scheme, Data: auth})
	return err
}
