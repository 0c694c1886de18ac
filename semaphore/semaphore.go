package semaphore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/zkapi"
)

// kindPrefix starts the kind of every semaphore node; N follows it.
const kindPrefix = "lease_n"

// MaxLeases bounds N: a sane semaphore, and a short node name.
const MaxLeases = 1 << 20

// Errors of the semaphore package. The shared ones are package lock's,
// so a harness compares them alike.
var (
	// ErrMaxLeases: the directory's semaphore has another N than this
	// handle's.
	ErrMaxLeases = errors.New("semaphore: max leases differs from the directory's")
	// ErrWouldBlock: TryAcquire found all N leases taken or waited for.
	ErrWouldBlock = queue.ErrWouldBlock
	// ErrLost: the session that held (or was queueing for) the lease
	// ended, and with it the lease node.
	ErrLost = queue.ErrSessionLost
	// ErrSuspended: disconnected while holding, with LoseOnDisconnect.
	ErrSuspended = queue.ErrSuspended
	// ErrReleased: the lease was already released.
	ErrReleased = queue.ErrReleased
	// ErrSequenceOverflow: the directory's sequence counter reached 2^31-1.
	ErrSequenceOverflow = queue.ErrSequenceOverflow
	// ErrConfig: a bad directory, N or option.
	ErrConfig = queue.ErrConfig
)

// Options configures a Semaphore.
type Options struct {
	// ID names the holder inside node names; letters, digits, '.' and
	// '_'. Default: 16 random hex digits.
	ID string
	// Data is stored in the lease node.
	Data []byte
	// LoseOnDisconnect makes Check and Wait report ErrSuspended as soon
	// as the connection drops.
	LoseOnDisconnect bool

	_ struct{}
}

// Semaphore is a handle on the semaphore at one directory. One handle may
// hold several leases at once; each Acquire takes one more.
type Semaphore struct {
	q    queue.Queue
	n    int
	kind string
	opts Options

	attempts queue.Attempts
}

// New returns a handle on the semaphore of n leases whose nodes live under
// dir (created on first use, as a container).
func New(conn zkapi.Conn, dir string, n int, opts Options) (*Semaphore, error) {
	id, err := queue.CheckConfig(dir, opts.ID)
	if err != nil {
		return nil, err
	}
	if n < 1 || n > MaxLeases {
		return nil, fmt.Errorf("%w: max leases %d is not in 1..%d", ErrConfig, n, MaxLeases)
	}
	opts.ID = id
	k := kindPrefix + strconv.Itoa(n)
	return &Semaphore{q: queue.Queue{Conn: conn, Dir: dir}, n: n, kind: k, opts: opts}, nil
}

// Dir is the semaphore's directory.
func (s *Semaphore) Dir() string { return s.q.Dir }

// MaxLeases is N.
func (s *Semaphore) MaxLeases() int { return s.n }

// Acquire waits until a lease is held or ctx ends. On any failure its node
// is removed before it returns.
func (s *Semaphore) Acquire(ctx context.Context) (*Lease, error) {
	return s.acquire(ctx, queue.Wait)
}

// TryAcquire takes a lease if fewer than N members precede its node, and
// fails with ErrWouldBlock otherwise, without waiting.
func (s *Semaphore) TryAcquire(ctx context.Context) (*Lease, error) {
	return s.acquire(ctx, queue.Try)
}

func (s *Semaphore) acquire(ctx context.Context, mode queue.Mode) (*Lease, error) {
	guid := s.attempts.Next(s.opts.ID)
	path, sid, err := s.q.Join(ctx, queue.Request{Kind: s.kind, GUID: guid, Data: s.opts.Data})
	if err != nil {
		return nil, fmt.Errorf("semaphore %s: %w", s.q.Dir, err)
	}
	h := &queue.Hold{Q: s.q, Path: path, SID: sid, LoseOnDisconnect: s.opts.LoseOnDisconnect}
	if err := s.waitTurn(ctx, h, mode); err != nil {
		if lerr := s.q.Leave(ctx, path, sid); lerr != nil {
			err = errors.Join(err, lerr)
		}
		return nil, fmt.Errorf("semaphore %s: %w", s.q.Dir, err)
	}
	return &Lease{h: h}, nil
}

// turn is what one listing says of a member.
type turn int

const (
	granted turn = iota
	firstWaiter
	laterWaiter
)

// waitTurn lists the directory until the member h is among the first N,
// then marks its node. Between listings the first waiter waits on the
// directory's child watch, which it sets with a second listing once a
// plain one has found it first (so that no change between the two goes
// unseen); a later waiter waits on its predecessor's data watch.
func (s *Semaphore) waitTurn(ctx context.Context, h *queue.Hold, mode queue.Mode) error {
	watchDir := false // the last listing found h the first waiter
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if ss := s.q.Conn.Session(); ss.Lost(h.SID) {
			return fmt.Errorf("%w while waiting (%v)", ErrLost, ss)
		}
		ms, w, err := s.list(ctx, watchDir)
		if errors.Is(err, zkapi.ErrConnectionLoss) {
			if err := queue.AwaitLink(ctx, s.q.Conn); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		t, pred, err := s.judge(ms, h.Path)
		if err != nil {
			return err
		}
		switch {
		case t == granted:
			return s.mark(ctx, h)
		case mode == queue.Try:
			return ErrWouldBlock
		case t == firstWaiter && w != nil:
			if _, err := h.WaitWatch(ctx, w); err != nil {
				return err
			}
		case t == firstWaiter:
			watchDir = true // list again, leaving the watch
			continue
		default:
			if err := waitPredecessor(ctx, h, s.q.Path(pred)); err != nil {
				return err
			}
		}
		// After a wake-up, list without a watch: a waiter granted now
		// leaves no child watch behind to fire at it later.
		watchDir = false
	}
}

// list lists the semaphore's members, leaving a child watch on the
// directory if watch is set.
func (s *Semaphore) list(ctx context.Context, watch bool) ([]queue.Member, zkapi.Watch, error) {
	if watch {
		return s.q.ListW(ctx)
	}
	ms, err := s.q.List(ctx)
	return ms, nil, err
}

// judge says, from one listing ordered by sequence, whether the member at
// p holds a lease, is the first waiter, or waits behind pred. Members of
// other kinds are foreign; a member of another N ahead of p is refused
// (ErrMaxLeases), one behind it is ignored: it refuses itself.
func (s *Semaphore) judge(all []queue.Member, p string) (turn, string, error) {
	var ms []queue.Member
	for _, m := range all {
		if !strings.HasPrefix(m.Kind, kindPrefix) {
			continue
		}
		if s.q.Path(m.Name) == p {
			ms = append(ms, m)
			break
		}
		if m.Kind != s.kind {
			return 0, "", fmt.Errorf("%w: %s is ahead, this handle has %d leases", ErrMaxLeases, m.Name, s.n)
		}
		ms = append(ms, m)
	}
	i := queue.Index(ms, s.q.Dir, p)
	if i < 0 {
		return 0, "", fmt.Errorf("%w: %s vanished while waiting", ErrLost, p)
	}
	if err := queue.CheckSeq(ms[i], s.q.Dir); err != nil {
		return 0, "", err
	}
	switch {
	case i < s.n:
		return granted, "", nil
	case i == s.n:
		return firstWaiter, "", nil
	}
	return laterWaiter, ms[i-1].Name, nil
}

// waitPredecessor waits on the data watch of a later waiter's predecessor
// at p: it returns when p is found gone or marked (granted: h may now be
// the first waiter), or when p changes.
func waitPredecessor(ctx context.Context, h *queue.Hold, p string) error {
	_, st, w, err := h.Q.Conn.GetW(ctx, p)
	switch {
	case errors.Is(err, zkapi.ErrNoNode), errors.Is(err, zkapi.ErrConnectionLoss):
		return nil
	case err != nil:
		return err
	case st.Version > 0:
		return nil
	}
	_, err = h.WaitWatch(ctx, w)
	return err
}

// mark sets the granted member's node data, through connection loss, so
// that its data version goes above 0: the wake-up of its successor, which
// is now the first waiter. A node gone meanwhile was lost with its session,
// and so is one whose session the client gave up while the mark was in
// flight (an abandoned handle): its node lives only until that session
// expires, so no lease is handed out on it.
func (s *Semaphore) mark(ctx context.Context, h *queue.Hold) error {
	for {
		if err := h.Check(); errors.Is(err, ErrLost) {
			return err
		}
		_, err := s.q.Conn.Set(ctx, h.Path, s.opts.Data, zkapi.AnyVersion)
		switch {
		case err == nil:
			if err := h.Check(); errors.Is(err, ErrLost) {
				return err
			}
			return nil
		case errors.Is(err, zkapi.ErrNoNode):
			return fmt.Errorf("%w: %s vanished while granted", ErrLost, h.Path)
		case !errors.Is(err, zkapi.ErrConnectionLoss):
			return fmt.Errorf("mark %s: %w", h.Path, err)
		}
		if err := queue.AwaitLink(ctx, s.q.Conn); err != nil {
			return err
		}
	}
}

// Lease is one held lease of a semaphore.
type Lease struct {
	h *queue.Hold
}

// Node is the path of the lease's node.
func (l *Lease) Node() string { return l.h.Path }

// Session is the id of the session that holds the lease.
func (l *Lease) Session() int64 { return l.h.SID }

// Check reports without blocking whether the lease is still held: nil,
// ErrLost, ErrSuspended (LoseOnDisconnect) or ErrReleased.
func (l *Lease) Check() error { return l.h.Check() }

// Wait blocks until the lease is lost or released and says how, or until
// ctx ends.
func (l *Lease) Wait(ctx context.Context) error { return l.h.Wait(ctx) }

// Token returns the lease's fencing token, its node's czxid: unique per
// lease, larger for a later-created lease (see the package doc for what
// it does and does not fence). The first call costs a read.
func (l *Lease) Token(ctx context.Context) (int64, error) { return l.h.Token(ctx) }

// Fenced applies ops atomically with a check that the lease node still
// exists, so a holder whose session expired cannot write. Results are
// those of ops.
func (l *Lease) Fenced(ctx context.Context, ops ...zkapi.Op) ([]zkapi.OpResult, error) {
	return l.h.Fenced(ctx, ops...)
}

// Release gives the lease up. It deletes the node even through connection
// loss, is idempotent, and returns ErrLost if the session ended while the
// lease was held.
func (l *Lease) Release(ctx context.Context) error {
	if err := l.h.Release(ctx); err != nil {
		return fmt.Errorf("semaphore %s: release: %w", l.h.Q.Dir, err)
	}
	return nil
}
