package semaphore

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// kindPrefix starts the kind of every semaphore node; N follows it.
const kindPrefix = "lease_n"

// MaxLeases bounds N: a sane semaphore, and a short node name.
const MaxLeases = 1 << 20

// ErrMaxLeases is the error when the directory's semaphore has another N
// than this handle's. The other errors a semaphore reports are package
// recipe's (recipe.ErrWouldBlock, recipe.ErrLost, recipe.ErrConfig, ...),
// as for every lock of the family.
var ErrMaxLeases = errors.New("semaphore: max leases differs from the directory's")

// Options configures a Semaphore.
type Options struct {
	// ID names the holder inside node names; letters, digits, '.' and
	// '_'. Default: 16 random hex digits.
	ID string
	// Data is stored in the lease node.
	Data []byte
	// LoseOnDisconnect makes Check and Wait report recipe.ErrSuspended as soon
	// as the connection drops.
	LoseOnDisconnect bool

	_ struct{}
}

// Semaphore is a handle on the semaphore at one directory. One handle may
// hold several leases at once; each Acquire takes one more.
type Semaphore struct {
	q      queue.Queue // dir/queue: the waiting members
	dir    string
	leases string // dir/leases: one node per held lease
	n      int
	kind   string
	opts   Options

	attempts queue.Attempts
}

// Names of the semaphore directory's two children.
const (
	queueDir  = "queue"
	leasesDir = "leases"
)

// New returns a handle on the semaphore of n leases whose nodes live under
// dir (created on first use, as a container, with its children queue and
// leases).
func New(conn zkapi.Conn, dir string, n int, opts Options) (*Semaphore, error) {
	id, err := queue.CheckConfig(dir, opts.ID)
	if err != nil {
		return nil, err
	}
	if n < 1 || n > MaxLeases {
		return nil, fmt.Errorf("%w: max leases %d is not in 1..%d", recipe.ErrConfig, n, MaxLeases)
	}
	opts.ID = id
	k := kindPrefix + strconv.Itoa(n)
	q := queue.Queue{Conn: conn, Dir: dir + "/" + queueDir, ContainerParent: true}
	return &Semaphore{q: q, dir: dir, leases: dir + "/" + leasesDir, n: n, kind: k, opts: opts}, nil
}

// Acquire waits until a lease is held or ctx ends. On any failure its
// nodes are removed before it returns. The lease's Node is under the
// directory's leases; its Check reports nil, recipe.ErrLost,
// recipe.ErrSuspended (LoseOnDisconnect) or recipe.ErrReleased; its
// Token, the lease node's czxid, is unique per lease and larger for a
// later-created lease (see the package doc for what it does and does not
// fence); its Fenced write is refused once the lease node is gone; its
// Release deletes the node even through connection loss.
func (s *Semaphore) Acquire(ctx context.Context) (recipe.Lease, error) {
	return s.acquire(ctx, queue.Wait)
}

// TryAcquire takes a lease if no member waits ahead of it and fewer than
// N leases are held, and fails with recipe.ErrWouldBlock otherwise, without
// waiting.
func (s *Semaphore) TryAcquire(ctx context.Context) (recipe.Lease, error) {
	return s.acquire(ctx, queue.Try)
}

func (s *Semaphore) acquire(ctx context.Context, mode queue.Mode) (recipe.Lease, error) {
	guid := s.attempts.Next(s.opts.ID)
	path, sid, err := s.q.Join(ctx, queue.Request{Kind: s.kind, GUID: guid, Data: s.opts.Data})
	if err != nil {
		return nil, fmt.Errorf("semaphore %s: %w", s.dir, err)
	}
	m := &member{
		wait:  &queue.Hold{Q: s.q, Path: path, SID: sid},
		lease: s.leases + "/" + path[len(s.q.Dir)+1:],
	}
	if err := s.waitTurn(ctx, m, mode); err != nil {
		return nil, fmt.Errorf("semaphore %s: %w", s.dir, errors.Join(err, s.leave(ctx, m)))
	}
	lq := queue.Queue{Conn: s.q.Conn, Dir: s.leases}
	return &lease{hold: &queue.Hold{Q: lq, Path: m.lease, SID: sid, LoseOnDisconnect: s.opts.LoseOnDisconnect}}, nil
}

// leave removes a member that failed to acquire: its queue node, and its
// lease node if it tried to take one (a promotion whose reply was lost
// may have made it, possibly under a session that replaced the member's,
// which the queue node's owner says nothing about).
func (s *Semaphore) leave(ctx context.Context, m *member) error {
	err := s.q.Leave(ctx, m.wait.Path, m.wait.SID)
	if !m.tried {
		return err
	}
	lq := queue.Queue{Conn: s.q.Conn, Dir: s.leases}
	return errors.Join(err, lq.Leave(ctx, m.lease, s.q.Conn.Session().ID))
}

// lease is one held lease of a semaphore, the recipe.Lease that Acquire
// returns.
type lease struct {
	*hold
}

// hold names the embedded queue.Hold, which gives lease the methods of
// recipe.Lease but Release, without exporting it as a field.
type hold = queue.Hold

// Release gives the lease up. It deletes the node even through connection
// loss, is idempotent, and returns recipe.ErrLost if the session ended while the
// lease was held.
func (l *lease) Release(ctx context.Context) error {
	if err := l.hold.Release(ctx); err != nil {
		return fmt.Errorf("semaphore %s: release: %w", l.hold.Q.Dir, err)
	}
	return nil
}
