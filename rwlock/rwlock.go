// Package rwlock provides a herd-free ZooKeeper read/write lock written
// only against zkapi (through zksim's lock mechanics).
//
// Readers and writers queue as ephemeral sequential nodes "read-..." and
// "write-..." in one directory, ordered by sequence. A writer holds the lock
// when its node is first and waits only for its immediate predecessor; a
// reader holds it when no write node precedes it and waits only for the
// nearest preceding write node. So a writer's release wakes exactly the
// readers it was blocking (all now grantable) or the one writer after it,
// and a reader's release wakes at most one writer. Every wake-up re-lists.
//
// Downgrade (write to read while holding) keeps the node's place in the
// queue and marks it as a read node by setting its data (a lock node's data
// version is otherwise always 0), so a writer already waiting behind it
// keeps waiting and the readers queued between them are granted
// (CURATOR-621). Upgrade (read to write while holding) is refused with
// ErrUpgrade: it would wait for its own read node forever.
//
// Leases have the same protections as package lock: lost creates found by
// guid and ephemeralOwner, removal through connection loss, loud session
// loss, fencing tokens and fenced writes.
package rwlock

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// Node name prefixes.
const (
	readKind  = "read"
	writeKind = "write"
)

// ErrUpgrade is the error when a handle holding a read lease asks for the
// write lock. The other errors a read/write lock reports are package
// recipe's (recipe.ErrWouldBlock, recipe.ErrLost, recipe.ErrConfig, ...),
// as for every lock of the family.
var ErrUpgrade = errors.New("rwlock: upgrade from read to write is not supported (it would deadlock)")

// Options configures an RWMutex.
type Options struct {
	// ID names the holder inside node names; letters, digits, '.' and
	// '_'. Default: 16 random hex digits.
	ID string
	// Data is stored in each lock node.
	Data []byte
	// LoseOnDisconnect makes Check and Wait report recipe.ErrSuspended as
	// soon as the connection drops.
	LoseOnDisconnect bool

	_ struct{}
}

// RWMutex is a handle on the read/write lock at one directory. It is not
// re-entrant.
type RWMutex struct {
	q    queue.Queue
	opts Options

	mu       sync.Mutex
	attempts queue.Attempts
	readers  int // read leases this handle holds
}

// New returns a handle on the read/write lock whose nodes live under dir.
func New(conn zkapi.Conn, dir string, opts Options) (*RWMutex, error) {
	id, err := queue.CheckConfig(dir, opts.ID)
	if err != nil {
		return nil, err
	}
	opts.ID = id
	return &RWMutex{q: queue.Queue{Conn: conn, Dir: dir}, opts: opts}, nil
}

// Acquire takes the write lock, waiting until ctx ends.
func (rw *RWMutex) Acquire(ctx context.Context) (*Lease, error) {
	return rw.acquire(ctx, writeKind, queue.Predecessor, queue.Wait)
}

// TryAcquire takes the write lock if it is free, or fails with
// recipe.ErrWouldBlock.
func (rw *RWMutex) TryAcquire(ctx context.Context) (*Lease, error) {
	return rw.acquire(ctx, writeKind, queue.Predecessor, queue.Try)
}

// AcquireRead takes the lock for reading, waiting until ctx ends.
func (rw *RWMutex) AcquireRead(ctx context.Context) (*Lease, error) {
	return rw.acquire(ctx, readKind, readerRule, queue.Wait)
}

// TryAcquireRead takes the lock for reading if no writer holds or waits
// ahead, or fails with recipe.ErrWouldBlock.
func (rw *RWMutex) TryAcquireRead(ctx context.Context) (*Lease, error) {
	return rw.acquire(ctx, readKind, readerRule, queue.Try)
}

func (rw *RWMutex) acquire(ctx context.Context, kind string, rule queue.Rule, mode queue.Mode) (*Lease, error) {
	rw.mu.Lock()
	if kind == writeKind && rw.readers > 0 {
		rw.mu.Unlock()
		return nil, fmt.Errorf("rwlock %s: %w", rw.q.Dir, ErrUpgrade)
	}
	rw.mu.Unlock()
	guid := rw.attempts.Next(rw.opts.ID)
	l := &Lease{rw: rw, write: kind == writeKind}
	err := queue.EnqueueInto(ctx, rw.q, queue.Request{
		Kind: kind, GUID: guid, Data: rw.opts.Data,
		Kinds: kinds, Rule: rule, Mode: mode,
		LoseOnDisconnect: rw.opts.LoseOnDisconnect,
	}, &l.hold)
	if err != nil {
		return nil, fmt.Errorf("rwlock %s: %w", rw.q.Dir, err)
	}
	if !l.write {
		rw.mu.Lock()
		rw.readers++
		rw.mu.Unlock()
	}
	return l, nil
}

// hold names the embedded queue.Hold, which gives Lease the methods of
// recipe.Lease but Release, without exporting it as a field.
type hold = queue.Hold

// kinds is the Request's Kinds, shared by every acquisition and never
// written: a literal per acquisition allocated.
var kinds = []string{readKind, writeKind}

// readerRule: no write node ahead, except write nodes marked as downgraded;
// else wait for the nearest write node ahead.
var readerRule = queue.Reader(writeKind)

// Lease is a held read or write lock, a recipe.Lease (Node, Session,
// Check, Wait, Token, Fenced, Release) with the protections of package
// lock's, and a write lease's Downgrade.
type Lease struct {
	hold // by value: one allocation with the Lease (queue.EnqueueInto)
	rw   *RWMutex

	mu       sync.Mutex
	write    bool
	released bool // Release has run: a read lease leaves the count once
}

// A Lease is a recipe.Lease, so a program holds it as it holds any other.
var _ recipe.Lease = (*Lease)(nil)

// IsWrite reports whether the lease is the write lock (false once
// downgraded).
func (l *Lease) IsWrite() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.write
}

// Downgrade turns a held write lock into a read lock without letting a
// waiting writer in between: the node keeps its place and is marked read.
func (l *Lease) Downgrade(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.write {
		return fmt.Errorf("rwlock %s: downgrade of a read lease", l.rw.q.Dir)
	}
	if err := l.hold.Check(); err != nil {
		return err
	}
	for {
		_, err := l.hold.Q.Conn.Set(ctx, l.hold.Path, l.rw.opts.Data, zkapi.AnyVersion)
		switch {
		case err == nil:
			l.write = false
			l.rw.mu.Lock()
			l.rw.readers++
			l.rw.mu.Unlock()
			return nil
		case errors.Is(err, zkapi.ErrNoNode):
			return fmt.Errorf("rwlock %s: downgrade: %w", l.rw.q.Dir, queue.ErrSessionLost)
		case !errors.Is(err, zkapi.ErrConnectionLoss):
			return fmt.Errorf("rwlock %s: downgrade: %w", l.rw.q.Dir, err)
		}
		if err := l.hold.Check(); err != nil {
			return err
		}
	}
}

// Release gives the lock up, deleting the node even through connection
// loss; idempotent; recipe.ErrLost if the session ended while holding.
func (l *Lease) Release(ctx context.Context) error {
	l.mu.Lock()
	wasRead, first := !l.write, !l.released
	l.released = true
	l.mu.Unlock()
	err := l.hold.Release(ctx)
	if wasRead && first {
		l.rw.mu.Lock()
		l.rw.readers--
		l.rw.mu.Unlock()
	}
	if err != nil {
		return fmt.Errorf("rwlock %s: release: %w", l.rw.q.Dir, err)
	}
	return nil
}
