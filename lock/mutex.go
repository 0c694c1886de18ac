package lock

import (
	"context"
	"fmt"
	"sync"

	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// kind is the name prefix of exclusive lock nodes.
const kind = "lock"

// kinds is the Request's Kinds, shared by every acquisition and never
// written: a literal per acquisition allocated.
var kinds = []string{kind}

// Mutex is a handle on the exclusive lock at one directory.
type Mutex struct {
	q    queue.Queue
	opts Options

	mu       sync.Mutex
	attempts queue.Attempts
	held     *lease // Reentrant: the current lease, if any

	// first is the lease of the handle's first acquisition, made with
	// the handle rather than on its own: a handle is often made for one
	// acquisition (one allocation then, not two). Once taken (its m set,
	// under mu) it is never handed out again, as a caller may still hold
	// it, and Release it, after it has ended.
	first lease
}

// New returns a handle on the lock whose nodes live under dir (created on
// first use, as a container).
func New(conn zkapi.Conn, dir string, opts Options) (*Mutex, error) {
	opts, err := opts.validate(dir)
	if err != nil {
		return nil, err
	}
	return &Mutex{q: queue.Queue{Conn: conn, Dir: dir}, opts: opts}, nil
}

// Acquire waits until the lock is held or ctx ends. On any failure its node
// is removed before it returns. The lease's Check reports nil,
// recipe.ErrLost, recipe.ErrSuspended (LoseOnDisconnect) or
// recipe.ErrReleased; its Token is the lock node's czxid, so successive
// holders of a lock get strictly increasing tokens (the first call costs
// a read); its Fenced write is refused once the node is gone, so a holder
// whose session expired cannot write (CURATOR-206); and its Release gives
// the lock up (for a re-entrant Mutex, one hold), deleting the node even
// through connection loss.
func (m *Mutex) Acquire(ctx context.Context) (recipe.Lease, error) {
	return asLease(m.acquire(ctx, queue.Wait))
}

// TryAcquire takes the lock if it is free and returns recipe.ErrWouldBlock
// otherwise, without waiting.
func (m *Mutex) TryAcquire(ctx context.Context) (recipe.Lease, error) {
	return asLease(m.acquire(ctx, queue.Try))
}

// asLease keeps a nil *lease out of the interface on failure.
func asLease(l *lease, err error) (recipe.Lease, error) {
	if err != nil {
		return nil, err
	}
	return l, nil
}

func (m *Mutex) acquire(ctx context.Context, mode queue.Mode) (*lease, error) {
	m.mu.Lock()
	if l := m.held; l != nil {
		if err := l.hold.Check(); err != nil {
			m.mu.Unlock()
			return nil, fmt.Errorf("lock %s: re-entrant acquire of a lost lease: %w", m.q.Dir, err)
		}
		l.count++
		m.mu.Unlock()
		return l, nil
	}
	l := m.newLease()
	m.mu.Unlock()
	guid := m.attempts.Next(m.opts.ID)

	err := queue.EnqueueInto(ctx, m.q, queue.Request{
		Kind: kind, GUID: guid, Data: m.opts.Data,
		Kinds: kinds, Rule: queue.Predecessor, Mode: mode,
		LoseOnDisconnect: m.opts.LoseOnDisconnect,
	}, &l.hold)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", m.q.Dir, err)
	}
	if m.opts.Reentrant {
		m.mu.Lock()
		m.held = l
		m.mu.Unlock()
	}
	return l, nil
}

// newLease returns a new lease on m: its first one, if not taken yet.
// The caller holds m.mu.
func (m *Mutex) newLease() *lease {
	if m.first.m == nil {
		m.first.m, m.first.count = m, 1 // zero until now: no need to write all of it
		return &m.first
	}
	return &lease{m: m, count: 1}
}

// lease is a held lock, the recipe.Lease that Acquire returns.
type lease struct {
	hold  // by value: one allocation with the lease (queue.EnqueueInto)
	m     *Mutex
	count int // holds, for a re-entrant Mutex; guarded by m.mu
}

// hold names the embedded queue.Hold, which gives lease the methods of
// recipe.Lease but Release, without exporting it as a field.
type hold = queue.Hold

// Release gives the lock up (for a re-entrant Mutex, one hold). It deletes
// the node even through connection loss, is idempotent, and returns recipe.ErrLost
// if the session ended while the lock was held.
func (l *lease) Release(ctx context.Context) error {
	m := l.m
	m.mu.Lock()
	if l.count > 1 {
		l.count--
		m.mu.Unlock()
		return nil
	}
	l.count = 0
	if m.held == l {
		m.held = nil
	}
	m.mu.Unlock()
	if err := l.hold.Release(ctx); err != nil {
		return fmt.Errorf("lock %s: release: %w", m.q.Dir, err)
	}
	return nil
}

// ID is the holder id used in node names.
func (m *Mutex) ID() string { return m.opts.ID }
