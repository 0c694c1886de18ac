package barrier

import (
	"context"
	"errors"
	"fmt"

	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/zkapi"
)

// awaitRound lists the members until this one is marked into a round.
// The member that finds n unmarked members (normally the n-th to arrive)
// marks the lowest n of them in one multi; the others wait on a data
// watch on their own node, which the mark fires. Every wake-up lists
// again.
func (m *Member) awaitRound(ctx context.Context) (round, error) {
	q := m.d.q
	for {
		if err := ctx.Err(); err != nil {
			return round{}, err
		}
		if err := m.lost(); err != nil {
			return round{}, err
		}
		ms, first, mine, err := m.scan(ctx)
		if errors.Is(err, zkapi.ErrConnectionLoss) {
			if err := queue.AwaitLink(ctx, q.Conn); err != nil {
				return round{}, err
			}
			continue
		}
		if err != nil {
			return round{}, err
		}
		i := queue.Index(ms, q.Dir, m.path)
		if i < 0 {
			return round{}, fmt.Errorf("%w: %s vanished while entering", errLost, m.path)
		}
		if err := queue.CheckSeq(ms[i], q.Dir); err != nil {
			return round{}, err
		}
		if mine != nil {
			return *mine, nil
		}
		if open := ms[first:]; len(open) >= m.d.n {
			if err := m.mark(ctx, open[:m.d.n]); err != nil {
				return round{}, err
			}
			continue // the listing says whether the mark took, and whose round it is
		}
		if err := m.awaitMark(ctx); err != nil {
			return round{}, err
		}
	}
}

// scan lists the members by sequence number and reads the marks of the
// rounds still inside, lowest first: marks are set a round at a time on
// the lowest unmarked members, so the marked members are a prefix of the
// listing, made of whole rounds. It returns the index of the first
// unmarked member and this member's round, if it has one. It reads one
// node per round still inside, plus one.
func (m *Member) scan(ctx context.Context) (ms []queue.Member, first int, mine *round, err error) {
	q := m.d.q
	ms, err = q.List(ctx, kind)
	if err != nil {
		return nil, 0, nil, err
	}
	seq := int64(-1)
	if i := queue.Index(ms, q.Dir, m.path); i >= 0 {
		seq = ms[i].Seq
	}
	for first < len(ms) {
		data, st, err := q.Conn.Get(ctx, q.Path(ms[first].Name))
		if errors.Is(err, zkapi.ErrNoNode) {
			first++ // gone: left or expired; the listing is otherwise still good
			continue
		}
		if err != nil {
			return nil, 0, nil, err
		}
		r, ok := parseRound(data)
		if !ok {
			break
		}
		r.formed = st.Mzxid // one multi marks the whole round
		if r.has(seq) {
			mine = &r
		}
		for first < len(ms) && ms[first].Seq <= r.last {
			first++
		}
	}
	return ms, first, mine, nil
}

// mark puts the round of the members in open into each of their nodes,
// all or none, each only if still unmarked (version 0). A member gone or
// marked meanwhile fails the multi, and connection loss leaves it
// unknown: the caller lists again either way.
func (m *Member) mark(ctx context.Context, open []queue.Member) error {
	r := round{first: open[0].Seq, last: open[len(open)-1].Seq}
	ops := make([]zkapi.Op, len(open))
	for i, o := range open {
		ops[i] = zkapi.SetOp{Path: m.d.q.Path(o.Name), Data: []byte(r.String()), Version: 0}
	}
	_, err := m.d.q.Conn.Multi(ctx, ops...)
	switch {
	case err == nil, errors.Is(err, zkapi.ErrNoNode), errors.Is(err, zkapi.ErrBadVersion):
		return nil
	case errors.Is(err, zkapi.ErrConnectionLoss):
		return queue.AwaitLink(ctx, m.d.q.Conn)
	}
	return err
}

// awaitMark waits until this member's node is marked or gone: a data
// watch on its own node, so only the member that marks, or the member's
// own end, wakes it. A watch is not set on a session already lost.
func (m *Member) awaitMark(ctx context.Context) error {
	_, st, w, err := m.d.q.Conn.GetW(ctx, m.path)
	switch {
	case errors.Is(err, zkapi.ErrNoNode):
		return nil // the next listing reports it
	case errors.Is(err, zkapi.ErrConnectionLoss):
		return queue.AwaitLink(ctx, m.d.q.Conn)
	case err != nil:
		return err
	case st.Version > 0 || m.lost() != nil:
		return nil
	}
	_, err = w.Wait(ctx)
	return err
}
