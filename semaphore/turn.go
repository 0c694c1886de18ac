package semaphore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// member is one acquisition while it waits.
type member struct {
	wait  *queue.Hold // its node in the queue, and the session that owns it
	lease string      // the path of its lease node, once granted
	tried bool        // a promotion was sent: the lease node may exist
}

// waitTurn waits until the member m holds a lease. Each round lists the
// queue: a later waiter waits for its predecessor to leave it; the first
// waiter counts the leases, takes one if fewer than N are held, and
// otherwise waits on the leases' child watch. No wake-up is taken as a
// grant: every one lists again.
func (s *Semaphore) waitTurn(ctx context.Context, m *member, mode queue.Mode) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if ss := s.q.Conn.Session(); ss.Lost(m.wait.SID) {
			return fmt.Errorf("%w while waiting (%v)", recipe.ErrLost, ss)
		}
		ms, st, err := s.q.ListStat(ctx)
		if errors.Is(err, zkapi.ErrConnectionLoss) {
			if err := queue.AwaitLink(ctx, s.q.Conn); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		pred, err := s.judge(ms, m.wait.Path)
		switch {
		case err != nil:
			return err
		case pred != "" && mode == queue.Try:
			return recipe.ErrWouldBlock
		case pred != "":
			err = waitPredecessor(ctx, m.wait, s.q.Path(pred))
		default:
			var done bool
			done, err = s.takeLease(ctx, m, st.Version, mode)
			if done {
				return err // nil, or the session lost since the grant
			}
		}
		if err != nil {
			return err
		}
	}
}

// judge returns, from one listing of the queue ordered by sequence, the
// name of the member just ahead of the one at p ("" if p is the first
// waiter). Members of other kinds are foreign; a member of another N
// ahead of p is refused (ErrMaxLeases), one behind it is ignored: it
// refuses itself.
func (s *Semaphore) judge(all []queue.Member, p string) (string, error) {
	pred := ""
	for _, m := range all {
		if !strings.HasPrefix(m.Kind(), kindPrefix) {
			continue
		}
		if s.q.Path(m.Name) == p {
			return pred, queue.CheckSeq(m, s.q.Dir)
		}
		if m.Kind() != s.kind {
			return "", fmt.Errorf("%w: %s is ahead, this handle has %d leases", ErrMaxLeases, m.Name, s.n)
		}
		pred = m.Name
	}
	return "", fmt.Errorf("%w: %s vanished while waiting", recipe.ErrLost, p)
}

// waitPredecessor waits on the data watch of a later waiter's
// predecessor at p (nobody sets a queue node's data, so it fires when p
// leaves the queue, granted or given up: h may now be the first waiter),
// or returns at once if p is found gone. A data watch, unlike an exists
// watch, is not left behind on a node already gone.
func waitPredecessor(ctx context.Context, h *queue.Hold, p string) error {
	_, _, w, err := h.Q.Conn.GetW(ctx, p)
	switch {
	case errors.Is(err, zkapi.ErrNoNode):
		return nil
	case errors.Is(err, zkapi.ErrConnectionLoss):
		return queue.AwaitLink(ctx, h.Q.Conn)
	case err != nil:
		return err
	}
	_, err = h.WaitWatch(ctx, w)
	return err
}

// takeLease is the first waiter's round, v the queue's version read
// before: it counts the leases without a watch, and takes one if fewer
// than N are held. If not, it counts again leaving a child watch on the
// leases (so that a release between the two counts is not missed) and
// waits for it; a waiter granted on a wake-up thus leaves no watch behind.
// Only a lease freed between the two counts grants with the watch set,
// which then fires once at a holder, waking nothing. done says m holds.
func (s *Semaphore) takeLease(ctx context.Context, m *member, v int32, mode queue.Mode) (done bool, err error) {
	for watch := false; ; watch = true {
		free, w, err := s.countLeases(ctx, watch)
		switch {
		case errors.Is(err, zkapi.ErrConnectionLoss):
			return false, queue.AwaitLink(ctx, s.q.Conn)
		case err != nil:
			return false, err
		case free:
			return s.promote(ctx, m, v)
		case mode == queue.Try:
			return false, recipe.ErrWouldBlock
		case w != nil:
			_, err = m.wait.WaitWatch(ctx, w)
			return false, err
		}
	}
}

// countLeases says whether fewer than N leases are held, leaving a child
// watch on the leases if watch is set. Missing leases hold none (and
// leave no watch: the promotion then creates them). A lease of another N
// is refused: its holder is ahead of every waiter.
func (s *Semaphore) countLeases(ctx context.Context, watch bool) (bool, zkapi.Watch, error) {
	var (
		kids []string
		w    zkapi.Watch
		err  error
	)
	if watch {
		kids, _, w, err = s.q.Conn.ChildrenW(ctx, s.leases)
	} else {
		kids, _, err = s.q.Conn.Children(ctx, s.leases)
	}
	if errors.Is(err, zkapi.ErrNoNode) {
		return true, nil, nil
	}
	if err != nil {
		return false, nil, err
	}
	held := 0
	for _, k := range kids {
		kind, _, _ := strings.Cut(k, "-")
		switch {
		case kind == s.kind:
			held++
		case strings.HasPrefix(kind, kindPrefix):
			return false, nil, fmt.Errorf("%w: %s/%s holds, this handle has %d leases", ErrMaxLeases, s.leases, k, s.n)
		}
	}
	return held < s.n, w, nil
}

// promote moves the first waiter m from the queue to the leases in one
// multi: set the queue's data at version v (a compare-and-set: every
// promotion bumps it, so two cannot both pass on one count; a release
// only deletes, which only lowers the count), create m's lease node,
// delete its queue node. The queue is the same node all along, as it
// holds m's node, so its version never repeats. A failure other than a
// stale version is resolved by looking at m's nodes.
func (s *Semaphore) promote(ctx context.Context, m *member, v int32) (bool, error) {
	m.tried = true
	c := s.q.Conn
	_, err := c.Multi(ctx,
		zkapi.SetOp{Path: s.q.Dir, Version: v},
		zkapi.CreateOp{Path: m.lease, Data: s.opts.Data, Mode: zkapi.Ephemeral},
		zkapi.DeleteOp{Path: m.wait.Path, Version: zkapi.AnyVersion})
	switch {
	case err == nil:
		if c.Session().ID != m.wait.SID {
			return false, fmt.Errorf("%w: session changed under the promotion of %s", recipe.ErrLost, m.lease)
		}
		return true, m.wait.Check()
	case errors.Is(err, zkapi.ErrBadVersion):
		return false, nil // a promotion since the listing: count again
	case errors.Is(err, zkapi.ErrConnectionLoss):
		if err := queue.AwaitLink(ctx, c); err != nil {
			return false, err
		}
		return s.resolve(ctx, m)
	case errors.Is(err, zkapi.ErrNoNode), errors.Is(err, zkapi.ErrNodeExists):
		return s.resolve(ctx, m)
	}
	return false, fmt.Errorf("promote %s: %w", m.lease, err)
}

// resolve finds out whether a promotion of m was applied: its lease node
// exists, owned by its session (after a sync, as the server may lag the
// one that applied it). Otherwise its queue node still exists and m is
// still waiting (a missing leases node, reaped or never made, is created
// for the next try), or m was lost with its session.
func (s *Semaphore) resolve(ctx context.Context, m *member) (bool, error) {
	c := s.q.Conn
	for {
		st, ok, err := s.syncExists(ctx, m.lease)
		if err == nil && ok {
			if st.EphemeralOwner != m.wait.SID {
				return false, fmt.Errorf("%w: %s was made by session %#x", recipe.ErrLost, m.lease, st.EphemeralOwner)
			}
			return true, m.wait.Check()
		}
		if err == nil {
			_, ok, err = c.Exists(ctx, m.wait.Path)
		}
		switch {
		case errors.Is(err, zkapi.ErrConnectionLoss):
			if err := queue.AwaitLink(ctx, c); err != nil {
				return false, err
			}
			continue
		case err != nil:
			return false, err
		case !ok:
			return false, fmt.Errorf("%w: %s vanished while promoted", recipe.ErrLost, m.wait.Path)
		}
		return false, s.ensureLeases(ctx)
	}
}

// syncExists reads p's Stat after a sync.
func (s *Semaphore) syncExists(ctx context.Context, p string) (zkapi.Stat, bool, error) {
	if err := s.q.Conn.Sync(ctx, s.dir); err != nil {
		return zkapi.Stat{}, false, err
	}
	return s.q.Conn.Exists(ctx, p)
}

// ensureLeases creates the leases node, a container, if it is missing;
// the directory above it exists while a member waits in its queue.
func (s *Semaphore) ensureLeases(ctx context.Context) error {
	_, err := s.q.Conn.Create(ctx, s.leases, nil, zkapi.Container)
	if err == nil || errors.Is(err, zkapi.ErrNodeExists) || errors.Is(err, zkapi.ErrConnectionLoss) {
		return nil
	}
	return fmt.Errorf("create %s: %w", s.leases, err)
}
