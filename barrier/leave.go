package barrier

import (
	"context"
	"errors"
	"fmt"

	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/zkapi"
)

// Leave removes the member from the barrier and returns once every member
// of its round has left (deleted its node, or lost its session), or ctx
// ends. Its own node is removed before it returns, whatever happens,
// through connection loss. If its session is lost while it is still
// inside, it returns recipe.ErrLost at once: its node went with the
// session, so it has left, but it does not know when the others do.
// Leave on a member that already left returns recipe.ErrReleased
// ("barrier: member already left").
func (m *Member) Leave(ctx context.Context) error {
	m.mu.Lock()
	if m.left {
		m.mu.Unlock()
		return fmt.Errorf("barrier %s: leave: %w", m.d.q.Dir, errLeft)
	}
	m.left = true
	m.mu.Unlock()
	deleted, err := m.leave(ctx)
	if err != nil && !deleted {
		if lerr := m.d.q.Leave(ctx, m.path, m.sid); lerr != nil {
			err = errors.Join(err, lerr)
		}
	}
	if err != nil {
		return m.d.errorf("leave", err)
	}
	return nil
}

// leave is ZooKeeper's double-barrier leave: the lowest member of the
// round waits on the highest, every other deletes its node and waits on
// the lowest, and everyone lists again after each wake-up. The lowest
// so deletes its node last, and its deletion releases the rest.
func (m *Member) leave(ctx context.Context) (deleted bool, err error) {
	q := m.d.q
	for {
		if !deleted {
			if err := m.lost(); err != nil {
				return true, err // the node went with the session
			}
		}
		if err := ctx.Err(); err != nil {
			return deleted, err
		}
		ms, err := q.List(ctx, kind)
		if errors.Is(err, zkapi.ErrConnectionLoss) {
			if err := queue.AwaitLink(ctx, q.Conn); err != nil {
				return deleted, err
			}
			continue
		}
		if err != nil {
			return deleted, m.orLost(err)
		}
		in := m.inRound(ms)
		i := queue.Index(in, q.Dir, m.path)
		switch {
		case i < 0 && !deleted:
			return true, fmt.Errorf("%w: %s vanished while leaving", errLost, m.path)
		case len(in) == 0:
			return deleted, nil
		case i == 0 && len(in) == 1:
			return true, q.Leave(ctx, m.path, m.sid)
		case i == 0:
			err = m.awaitGone(ctx, in[len(in)-1].Name)
		default:
			if !deleted {
				if err := q.Leave(ctx, m.path, m.sid); err != nil {
					return false, err
				}
				deleted = true
			}
			err = m.awaitGone(ctx, in[0].Name)
		}
		if err != nil {
			return deleted, m.orLost(err)
		}
	}
}

// inRound keeps the members of m's round: the nodes numbered in its
// range, less those found to be newer than its mark.
func (m *Member) inRound(ms []queue.Member) []queue.Member {
	var in []queue.Member
	for _, x := range ms {
		if m.round.has(x.Seq) && !m.strangers[x.Name] {
			in = append(in, x)
		}
	}
	return in
}

// awaitGone waits until the member node name changes or is gone: a data
// watch, which leaves nothing behind on a node already gone. A node
// created after the round's mark is no member of it (see round): it is
// noted, and the caller lists again.
func (m *Member) awaitGone(ctx context.Context, name string) error {
	_, st, w, err := m.d.q.Conn.GetW(ctx, m.d.q.Path(name))
	switch {
	case errors.Is(err, zkapi.ErrNoNode):
		return nil
	case errors.Is(err, zkapi.ErrConnectionLoss):
		return queue.AwaitLink(ctx, m.d.q.Conn)
	case err != nil:
		return err
	case st.Czxid > m.round.formed:
		if m.strangers == nil {
			m.strangers = map[string]bool{}
		}
		m.strangers[name] = true
		return nil
	}
	_, err = w.Wait(ctx)
	return err
}

// orLost reports a failure after the session was lost as errLost.
func (m *Member) orLost(err error) error {
	if lerr := m.lost(); lerr != nil {
		return errors.Join(lerr, err)
	}
	return err
}

// Wait blocks until the member's session is lost, and says so, or ctx
// ends: a member runs its work alongside it and stops when it returns.
func (m *Member) Wait(ctx context.Context) error {
	c := m.d.q.Conn
	for {
		s := c.Session()
		if err := m.Check(); err != nil {
			return err
		}
		if _, err := c.WaitSession(ctx, s.Seq); err != nil {
			return err
		}
	}
}
