package election

import (
	"context"
	"errors"
	"fmt"

	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/zkapi"
)

// kind is the name prefix of candidate nodes: "cand-<guid>-<seq>".
const kind = "cand"

// Election is a handle on the election held in one directory. It is both
// a candidate (Campaign) and an observer (Leader, Observe); observing
// creates nothing.
type Election struct {
	q    queue.Queue
	opts Options

	attempts queue.Attempts
}

// New returns a handle on the election whose candidate nodes live under
// dir (created on first Campaign, as a container).
func New(conn zkapi.Conn, dir string, opts Options) (*Election, error) {
	opts, err := opts.validate(dir)
	if err != nil {
		return nil, err
	}
	return &Election{q: queue.Queue{Conn: conn, Dir: dir}, opts: opts}, nil
}

// ID is the candidate id used in node names.
func (e *Election) ID() string { return e.opts.ID }

// Campaign stands for election and waits until this candidate leads or ctx
// ends. On any failure its node is removed (through connection loss)
// before it returns. Each call is a new candidacy with a node of its own.
func (e *Election) Campaign(ctx context.Context) (*Leadership, error) {
	return e.campaign(ctx, queue.Wait)
}

// TryCampaign leads if no other candidate is ahead, and otherwise returns
// recipe.ErrWouldBlock ("election: another candidate leads") at once,
// leaving nothing behind.
func (e *Election) TryCampaign(ctx context.Context) (*Leadership, error) {
	return e.campaign(ctx, queue.Try)
}

func (e *Election) campaign(ctx context.Context, mode queue.Mode) (*Leadership, error) {
	guid := e.attempts.Next(e.opts.ID)
	h, err := queue.Enqueue(ctx, e.q, queue.Request{
		Kind: kind, GUID: guid, Data: e.opts.Data,
		Kinds: []string{kind}, Rule: queue.Predecessor, Mode: mode,
	})
	if err != nil {
		return nil, e.wrap("campaign", err)
	}
	// The term is read once, now, so that Term needs no request; a
	// candidate that cannot read it does not lead. The read is a request:
	// the client may give its session up (a client-side timeout, an
	// abandoned handle) while it is under way, and the node, still there
	// until the server expires that session, answers as if all were
	// well. A leadership is never handed out on a session already lost,
	// as the queue never grants on one.
	term, err := h.Token(ctx)
	if err == nil {
		err = h.Check()
	}
	if err != nil {
		if rerr := h.Release(context.WithoutCancel(ctx)); rerr != nil && !errors.Is(rerr, queue.ErrSessionLost) {
			err = errors.Join(err, rerr)
		}
		return nil, e.wrap("campaign", err)
	}
	resigned, markResigned := context.WithCancel(context.Background())
	return &Leadership{hold: h, e: e, term: term, resigned: resigned, markResigned: markResigned}, nil
}

// wrap puts the directory in front of err and turns the queue's sentinels
// into the election's, keeping both in the chain.
func (e *Election) wrap(op string, err error) error {
	switch {
	case errors.Is(err, queue.ErrSessionLost):
		return fmt.Errorf("election %s: %s: %w: %w", e.q.Dir, op, errLost, err)
	case errors.Is(err, queue.ErrReleased):
		return fmt.Errorf("election %s: %s: %w", e.q.Dir, op, errResigned)
	case errors.Is(err, queue.ErrWouldBlock):
		return fmt.Errorf("election %s: %s: %w", e.q.Dir, op, errNotElected)
	}
	return fmt.Errorf("election %s: %s: %w", e.q.Dir, op, err)
}

// Leadership is a won election, a recipe.Lease: the candidate's node is
// the lowest in the directory. Its Node is the leader's candidate node,
// its Session the session that owns it, its Token the term (Term), and
// its Release resigns.
type Leadership struct {
	*hold
	e    *Election
	term int64

	resigned     context.Context // done once Release is called
	markResigned context.CancelFunc
}

// hold names the embedded queue.Hold, which gives Leadership Node,
// Session and Token without exporting it as a field.
type hold = queue.Hold

// Term is the fencing epoch of this leadership: the czxid of the leader's
// node. Successive leaders of one directory have strictly increasing
// terms (see the package doc for why).
func (l *Leadership) Term() int64 { return l.term }

// Check reports, without a request, whether this client may still lead:
// nil, recipe.ErrLost (its session is lost) or recipe.ErrReleased
// (resigned). A node deleted by someone else is seen only by Wait,
// Fenced and Release.
func (l *Leadership) Check() error {
	if err := l.hold.Check(); err != nil {
		return l.e.wrap("check", err)
	}
	return nil
}

// Wait blocks until the leadership ends and says why, or until ctx ends:
// recipe.ErrLost as soon as the client hears that its session is lost or
// finds its node deleted, recipe.ErrReleased after Release (also from
// another goroutine). A leader does its work alongside Wait and stops when it
// returns. It keeps one data watch on the leader's own node, so it costs
// no request while nothing changes.
func (l *Leadership) Wait(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(l.resigned, cancel)()
	conn := l.hold.Q.Conn
	for {
		if err := l.Check(); err != nil {
			return err
		}
		s := conn.Session()
		_, _, w, err := conn.GetW(ctx, l.hold.Path)
		switch {
		case err == nil:
			// Fires on delete or change of the node, and with
			// EventNotWatching when the session expires or the Conn
			// closes: each is looked at again from the top.
			_, err = w.Wait(ctx)
		case errors.Is(err, zkapi.ErrNoNode):
			if err := l.Check(); err != nil {
				return err
			}
			return fmt.Errorf("election %s: %w: %s is gone", l.e.q.Dir, errLost, l.hold.Path)
		case errors.Is(err, zkapi.ErrConnectionLoss):
			// The session's fate is the next snapshot's to tell.
			_, err = conn.WaitSession(ctx, s.Seq)
		}
		if err != nil {
			if l.resigned.Err() != nil {
				return fmt.Errorf("election %s: %w", l.e.q.Dir, errResigned)
			}
			return err
		}
	}
}

// Fenced applies ops atomically with a check that the leader's node still
// exists, so a leader whose session expired, or whose node was removed,
// cannot write (the lock package's Lease.Fenced). Results are those of
// ops; a refused write is recipe.ErrLost.
func (l *Leadership) Fenced(ctx context.Context, ops ...zkapi.Op) ([]zkapi.OpResult, error) {
	res, err := l.hold.Fenced(ctx, ops...)
	if err != nil && (errors.Is(err, queue.ErrSessionLost) || errors.Is(err, queue.ErrReleased)) {
		return res, l.e.wrap("fenced write", err)
	}
	return res, err
}

// Release resigns: it gives leadership up: it deletes the leader's node, through
// connection loss, which wakes the next candidate only. It is idempotent
// and returns recipe.ErrLost if the session ended while leading.
func (l *Leadership) Release(ctx context.Context) error {
	l.markResigned()
	if err := l.hold.Release(ctx); err != nil {
		return l.e.wrap("resign", err)
	}
	return nil
}
