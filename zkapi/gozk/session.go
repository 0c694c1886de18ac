package gozk

import (
	"context"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/internal/sessionlog"
	"github.com/zksim/zksim/zkapi"
)

// tracker holds the session snapshots of one Conn (the last
// sessionlog.Len, for WaitSession callers that fell behind).
type tracker struct {
	mu      sync.Mutex
	hist    sessionlog.Log
	changed chan struct{} // closed and replaced at every change
	frozen  bool          // closing or closed: go-zookeeper's states no longer count
}

func newTracker(first zkapi.Session) *tracker {
	return &tracker{hist: sessionlog.New(first), changed: make(chan struct{})}
}

// transitions returns the snapshots (Seq left zero) that go-zookeeper state
// st adds after cur, id being go-zookeeper's session ID when st was
// reported. It is the whole state mapping; see the package doc.
func transitions(cur zkapi.Session, st zk.State, id int64) []zkapi.Session {
	switch st {
	case zk.StateHasSession:
		if id == 0 {
			return nil // a later expiry already reset the ID; its event follows
		}
		var out []zkapi.Session
		if cur.ID != 0 && cur.ID != id && cur.State != zkapi.StateExpired {
			// go-zookeeper replaced the session; its Expired event was lost.
			out = append(out, zkapi.Session{ID: cur.ID, State: zkapi.StateExpired})
		}
		if cur.ID != id || cur.State != zkapi.StateConnected {
			out = append(out, zkapi.Session{ID: id, State: zkapi.StateConnected})
		}
		return out
	case zk.StateExpired:
		if cur.ID != 0 && cur.State != zkapi.StateExpired {
			return []zkapi.Session{{ID: cur.ID, State: zkapi.StateExpired}}
		}
	case zk.StateDisconnected, zk.StateConnecting, zk.StateConnected:
		if cur.State == zkapi.StateConnected {
			return []zkapi.Session{{ID: cur.ID, State: zkapi.StateDisconnected}}
		}
	}
	return nil
}

// observe applies go-zookeeper state st, reported while its session ID was id.
func (t *tracker) observe(st zk.State, id int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.frozen {
		return
	}
	for _, s := range transitions(t.latest(), st, id) {
		t.push(s)
	}
}

// freeze makes the tracker ignore go-zookeeper's states from now on: the
// Conn is closing, and the Disconnected that go-zookeeper reports on the way
// is not news.
func (t *tracker) freeze() {
	t.mu.Lock()
	t.frozen = true
	t.mu.Unlock()
}

// close records the final Closed snapshot.
func (t *tracker) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.frozen = true
	if cur := t.latest(); cur.State != zkapi.StateClosed {
		t.push(zkapi.Session{ID: cur.ID, State: zkapi.StateClosed})
	}
}

func (t *tracker) latest() zkapi.Session { return t.hist.Latest() }

// push appends s as the next snapshot; t.mu must be held.
func (t *tracker) push(s zkapi.Session) {
	t.hist.Push(s)
	close(t.changed)
	t.changed = make(chan struct{})
}

func (t *tracker) session() zkapi.Session {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.latest()
}

// next returns the first remembered snapshot after seq and true, or the
// channel that will be closed at the next change and false.
func (t *tracker) next(seq uint64) (zkapi.Session, <-chan struct{}, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.hist.After(seq)
	if !ok {
		return s, t.changed, false
	}
	return s, nil, true
}

// wait returns the first remembered snapshot after seq, waiting for it if
// need be. After the Closed snapshot nothing can follow: it returns
// zkapi.ErrClosed at once.
func (t *tracker) wait(ctx context.Context, seq uint64) (zkapi.Session, error) {
	for {
		s, changed, ok := t.next(seq)
		if ok {
			return s, nil
		}
		if s.State == zkapi.StateClosed {
			return s, zkapi.ErrClosed
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return s, ctx.Err()
		}
	}
}
