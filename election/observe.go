package election

import (
	"context"
	"errors"
	"fmt"

	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/zkapi"
)

// Leader is what an observer sees of the current leader.
type Leader struct {
	// Node is the path of the leader's candidate node.
	Node string
	// Term is the node's czxid, the leadership's fencing epoch.
	Term int64
	// Session owns the node.
	Session int64
	// Data is the leader's Options.Data.
	Data []byte
}

// Leader returns the candidate that leads now, or ErrNoLeader. It reads
// after a sync, so it is no older than the latest write the ensemble's
// leader had applied; the candidate it names may not have heard yet that
// it leads. It needs no candidacy and creates nothing.
func (e *Election) Leader(ctx context.Context) (Leader, error) {
	ld, _, err := e.look(ctx, false)
	if err != nil {
		return Leader{}, err
	}
	return ld, nil
}

// Observe waits until a leader with a term above after leads, and returns
// it: Observe(ctx, 0) waits for any leader, Observe(ctx, ld.Term) for the
// next one. An observer watches the leader's node (or, with no
// candidate, the directory's children), so a leader change wakes every
// observer, and no candidate.
func (e *Election) Observe(ctx context.Context, after int64) (Leader, error) {
	for {
		ld, w, err := e.look(ctx, true)
		switch {
		case err == nil && ld.Term > after:
			return ld, nil
		case err != nil && !errors.Is(err, ErrNoLeader):
			return Leader{}, err
		case w == nil: // something changed under the look: look again
			continue
		}
		ev, err := w.Wait(ctx)
		if err != nil {
			return Leader{}, err
		}
		if ev.Type == zkapi.EventNotWatching {
			// The session ended (the Conn may open another) or the Conn
			// closed: look again, or fail on the closed Conn.
			if errors.Is(ev.Err, zkapi.ErrClosed) {
				return Leader{}, fmt.Errorf("election %s: observe: %w", e.q.Dir, ev.Err)
			}
		}
	}
}

// look syncs and reads the leader. With watch, it also leaves a watch that
// fires when the answer may change: a data watch on the leader's node, or
// with no leader a watch on the directory (its children, or its creation).
// A nil watch with watch set means: look again.
func (e *Election) look(ctx context.Context, watch bool) (Leader, zkapi.Watch, error) {
	conn := e.q.Conn
	for {
		ld, w, err := e.lookOnce(ctx, watch)
		if errors.Is(err, zkapi.ErrConnectionLoss) {
			if err := queue.AwaitLink(ctx, conn); err != nil {
				return Leader{}, nil, err
			}
			continue
		}
		if err != nil && !errors.Is(err, ErrNoLeader) {
			return Leader{}, nil, e.wrap("leader", err)
		}
		return ld, w, err
	}
}

func (e *Election) lookOnce(ctx context.Context, watch bool) (Leader, zkapi.Watch, error) {
	conn := e.q.Conn
	if err := conn.Sync(ctx, e.q.Dir); err != nil && !errors.Is(err, zkapi.ErrNoNode) {
		return Leader{}, nil, err
	}
	ms, err := e.q.List(ctx, kind)
	if errors.Is(err, zkapi.ErrNoNode) {
		ms, err = nil, nil
	}
	if err != nil {
		return Leader{}, nil, err
	}
	if len(ms) == 0 {
		if !watch {
			return Leader{}, nil, ErrNoLeader
		}
		w, err := e.watchEmpty(ctx)
		if err != nil {
			return Leader{}, nil, err
		}
		return Leader{}, w, ErrNoLeader
	}
	if err := queue.CheckSeq(ms[0], e.q.Dir); err != nil {
		return Leader{}, nil, err
	}
	p := e.q.Path(ms[0].Name)
	var (
		data []byte
		st   zkapi.Stat
		w    zkapi.Watch
	)
	if watch {
		data, st, w, err = conn.GetW(ctx, p)
	} else {
		data, st, err = conn.Get(ctx, p)
	}
	if errors.Is(err, zkapi.ErrNoNode) {
		return e.lookOnce(ctx, watch) // the leader went between the reads
	}
	if err != nil {
		return Leader{}, nil, err
	}
	return Leader{Node: p, Term: st.Czxid, Session: st.EphemeralOwner, Data: data}, w, nil
}

// watchEmpty watches a directory found without candidates: its children,
// or its creation if it is missing. It lists again after setting the
// watch and returns a nil watch if a candidate appeared meanwhile.
func (e *Election) watchEmpty(ctx context.Context) (zkapi.Watch, error) {
	conn := e.q.Conn
	_, _, w, err := conn.ChildrenW(ctx, e.q.Dir)
	if errors.Is(err, zkapi.ErrNoNode) {
		_, ok, w, err := conn.ExistsW(ctx, e.q.Dir)
		if err != nil || ok {
			return nil, err
		}
		return w, nil
	}
	if err != nil {
		return nil, err
	}
	ms, err := e.q.List(ctx, kind)
	if err != nil && !errors.Is(err, zkapi.ErrNoNode) {
		return nil, err
	}
	if len(ms) > 0 {
		return nil, nil
	}
	return w, nil
}
