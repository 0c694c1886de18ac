package lock

import (
	"context"
	"errors"

	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// MutexRecipe is Mutex as a recipe.Lock, for the harness.
func MutexRecipe() recipe.Lock {
	return recipe.Lock{
		Name: "lock",
		Acquire: func(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error) {
			m, err := New(conn, dir, Options{ID: id})
			if err != nil {
				return nil, err
			}
			return m.Acquire(ctx)
		},
	}
}

// ReentrantRecipe is a re-entrant Mutex as a recipe.Lock: each acquisition
// takes the lock twice on one handle (the second time without waiting)
// and its release gives both holds back, the inner one first.
func ReentrantRecipe() recipe.Lock {
	return recipe.Lock{
		Name: "lock/reentrant",
		Acquire: func(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error) {
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

// MultiRecipe is a MultiMutex as a recipe.Lock: each acquisition takes the
// lock at dir and a second one at dir+"-b", all or nothing.
func MultiRecipe() recipe.Lock {
	dirs := func(dir string) []string { return []string{dir, dir + "-b"} }
	return recipe.Lock{
		Name: "lock/multi",
		Acquire: func(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error) {
			mm, err := NewMulti(conn, dirs(dir), Options{ID: id})
			if err != nil {
				return nil, err
			}
			return mm.Acquire(ctx)
		},
		Dirs: dirs,
	}
}
