package lock

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/zksim/zksim/zkapi"
)

// Recipe is a lock algorithm in the form zksim's harness checks: functions
// over a zkapi.Conn. The good recipes and the zoo of broken ones (package
// lock/zoo) are all Recipes, and so can be a user's own.
type Recipe struct {
	Name string
	// Acquire takes the lock at dir, exclusively (or for writing), for the
	// holder id: letters, digits, '.' and '_', unique per acquisition (the
	// harness passes "c3_7": client 3, 7th acquisition), since a recipe
	// may name its node after it and look for it after a lost reply.
	Acquire AcquireFunc
	// AcquireRead takes the lock at dir for reading; nil for exclusive
	// locks.
	AcquireRead AcquireFunc
	// Dirs lists the lock directories an acquisition at dir uses, when
	// they are more than dir (a multi-lock's): the harness looks in each
	// for nodes left behind and for herds. nil: dir alone.
	Dirs func(dir string) []string
	// Leases is how many may hold at once, for a counting semaphore's
	// recipe (package semaphore); 0 means 1, a lock. The harness then
	// checks that no more than Leases hold at once, and fencing by what
	// a semaphore's tokens can say.
	Leases int
	// Keeps reports whether the recipe leaves the node at path behind on
	// purpose, for an acquisition at dir: a node that stays once every
	// acquisition has ended, by design (a semaphore's directory of
	// leases, say). Each lock directory (Dirs) and its ancestors are
	// kept whatever Keeps says: they are the caller's. Any other node a
	// client created that nobody will remove is an orphan
	// (check.Leftovers). nil: nothing else is kept.
	Keeps func(dir, path string) bool
	// Terms says the Held's Token is a leadership's term (an election,
	// package election): the harness then also checks that no two
	// acquisitions share a term, that terms grow in the order the
	// acquisitions began, and that no write from an older term lands once
	// a newer one has begun (check.Terms).
	Terms bool
}

// Validate reports why the harness cannot check r, naming the field: a
// Name that a trace file's recipe line cannot hold (empty, or with
// spaces), no Acquire, a negative Leases, or Leases beside AcquireRead
// (the checkers count a semaphore's leases or a read/write lock's modes,
// not both). A recipe that fails it would otherwise run as clients that
// panic, a verdict about the harness rather than the recipe.
func (r Recipe) Validate() error {
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
func (r Recipe) MaxHolders() int { return max(r.Leases, 1) }

// AcquireFunc takes a lock and returns what releases it.
type AcquireFunc func(ctx context.Context, conn zkapi.Conn, dir, id string) (Held, error)

// Held is a lock held by a Recipe. A Held may also offer
// Token(context.Context) (int64, error) for fencing and
// Fenced(context.Context, ...zkapi.Op) ([]zkapi.OpResult, error) for
// fenced writes; the harness uses them when present.
type Held interface {
	Release(ctx context.Context) error
}

// Tokener is a Held that has a fencing token.
type Tokener interface {
	Token(ctx context.Context) (int64, error)
}

// Fencer is a Held that can make a write conditional on still holding.
type Fencer interface {
	Fenced(ctx context.Context, ops ...zkapi.Op) ([]zkapi.OpResult, error)
}

// MutexRecipe is Mutex as a Recipe.
func MutexRecipe() Recipe {
	return Recipe{
		Name: "lock",
		Acquire: func(ctx context.Context, conn zkapi.Conn, dir, id string) (Held, error) {
			m, err := New(conn, dir, Options{ID: id})
			if err != nil {
				return nil, err
			}
			return m.Acquire(ctx)
		},
	}
}

// ReentrantRecipe is a re-entrant Mutex as a Recipe: each acquisition
// takes the lock twice on one handle (the second time without waiting)
// and its release gives both holds back, the inner one first.
func ReentrantRecipe() Recipe {
	return Recipe{
		Name: "lock/reentrant",
		Acquire: func(ctx context.Context, conn zkapi.Conn, dir, id string) (Held, error) {
			m, err := New(conn, dir, Options{ID: id, Reentrant: true})
			if err != nil {
				return nil, err
			}
			outer, err := m.Acquire(ctx)
			if err != nil {
				return nil, err
			}
			if _, err := m.Acquire(ctx); err != nil {
				return nil, errors.Join(err, outer.Release(ctx))
			}
			return twice{outer}, nil
		},
	}
}

// twice is a lease held twice: its Release gives both holds back.
type twice struct{ *Lease }

func (t twice) Release(ctx context.Context) error {
	return errors.Join(t.Lease.Release(ctx), t.Lease.Release(ctx))
}

// MultiRecipe is a MultiMutex as a Recipe: each acquisition takes the
// lock at dir and a second one at dir+"-b", all or nothing.
func MultiRecipe() Recipe {
	dirs := func(dir string) []string { return []string{dir, dir + "-b"} }
	return Recipe{
		Name: "lock/multi",
		Acquire: func(ctx context.Context, conn zkapi.Conn, dir, id string) (Held, error) {
			mm, err := NewMulti(conn, dirs(dir), Options{ID: id})
			if err != nil {
				return nil, err
			}
			return mm.Acquire(ctx)
		},
		Dirs: dirs,
	}
}
