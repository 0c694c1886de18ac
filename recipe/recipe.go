package recipe

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/zksim/zksim/zkapi"
)

// Lease is a held lock, read/write lock, semaphore lease or leadership:
// a node in a queue, owned by one session.
type Lease interface {
	// Node is the path of the held node.
	Node() string
	// Session is the id of the session that owns the node.
	Session() int64
	// Check reports without blocking whether the lease is still held,
	// and if not why (the recipe's sentinel errors).
	Check() error
	// Wait blocks until the lease is lost or released and says how, or
	// until ctx ends: a holder works alongside it and stops when it
	// returns.
	Wait(ctx context.Context) error
	// Token is the fencing token: the node's czxid, larger for a later
	// holder.
	Token(ctx context.Context) (int64, error)
	// Fenced applies ops atomically with a check that the node still
	// exists, so a holder whose session expired cannot write. Results
	// are those of ops.
	Fenced(ctx context.Context, ops ...zkapi.Op) ([]zkapi.OpResult, error)
	// Release gives the lease up, deleting the node even through
	// connection loss; it is idempotent and reports a session lost while
	// holding.
	Release(ctx context.Context) error
}

// Lock is a recipe of the lock family (a lock, read/write lock,
// semaphore or election) in the form zksim's harness checks: functions
// over a zkapi.Conn. The good recipes, the zoo of broken ones and a
// user's own are all Locks.
type Lock struct {
	Name string
	// Acquire takes the lock at dir, exclusively (or for writing), for the
	// holder id: letters, digits, '.' and '_', unique per acquisition (the
	// harness passes "c3_7": client 3, 7th acquisition), since a recipe
	// may name its node after it and look for it after a lost reply.
	Acquire func(ctx context.Context, conn zkapi.Conn, dir, id string) (Held, error)
	// AcquireRead takes the lock at dir for reading; nil for exclusive
	// locks.
	AcquireRead func(ctx context.Context, conn zkapi.Conn, dir, id string) (Held, error)
	// Dirs lists the lock directories an acquisition at dir uses, when
	// they are more than dir (a multi-lock's): the harness looks in each
	// for nodes left behind and for herds. nil: dir alone.
	Dirs func(dir string) []string
	// Leases is how many may hold at once (a counting semaphore's N); 0
	// means 1, a lock. The harness then checks that no more than Leases
	// hold at once, and fencing by what a semaphore's tokens can say.
	Leases int
	// Keeps reports whether the recipe leaves the node at path behind on
	// purpose, for an acquisition at dir: a node that stays once every
	// acquisition has ended, by design (a semaphore's directory of
	// leases, say). Each lock directory (Dirs) and its ancestors are
	// kept whatever Keeps says: they are the caller's. Any other node a
	// client created that nobody will remove is an orphan
	// (check.Orphan). nil: nothing else is kept.
	Keeps func(dir, path string) bool
	// Terms says the Held's Token is a leadership's term (an election):
	// the harness then also checks that no two acquisitions share a
	// term, that terms grow in the order the acquisitions began, and that
	// no write from an older term lands once a newer one has begun
	// (check.SharedTerm, check.TermOrder).
	Terms bool
}

// Validate reports why the harness cannot check r, naming the field: a
// Name that a trace file's recipe line cannot hold (empty, or with
// spaces), no Acquire, a negative Leases, or Leases beside AcquireRead
// (the checkers count a semaphore's leases or a read/write lock's modes,
// not both). A recipe that fails it would otherwise run as clients that
// panic, a verdict about the harness rather than the recipe.
func (r Lock) Validate() error {
	switch {
	case r.Name == "" || strings.IndexFunc(r.Name, unicode.IsSpace) >= 0:
		return fmt.Errorf("%w: Recipe.Name is %q, want a name without spaces (a trace file's recipe line)", ErrConfig, r.Name)
	case r.Acquire == nil:
		return fmt.Errorf("%w: recipe %s: Recipe.Acquire is nil, want the function that takes the lock", ErrConfig, r.Name)
	case r.Leases < 0:
		return fmt.Errorf("%w: recipe %s: Recipe.Leases is %d, want 0 or more (0 and 1: a lock)", ErrConfig, r.Name, r.Leases)
	case r.Leases > 1 && r.AcquireRead != nil:
		return fmt.Errorf("%w: recipe %s: Recipe.Leases is %d with an AcquireRead, want Leases 0 or 1 for a read/write lock", ErrConfig, r.Name, r.Leases)
	}
	return nil
}

// MaxHolders is how many may hold r at once (for writing, if it has
// readers): Leases, or 1.
func (r Lock) MaxHolders() int { return max(r.Leases, 1) }

// Held is a lock held by a Lock recipe: every Lease is one. When a Held
// also has a Lease's Token method, the harness writes to the protected
// resource with its token, and with its Fenced method when it has that
// too; the zoo's unfenced designs have neither.
type Held interface {
	Release(ctx context.Context) error
}
