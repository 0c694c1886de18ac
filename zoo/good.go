package zoo

import (
	"context"
	"errors"
	"fmt"

	"github.com/zksim/zksim/barrier"
	"github.com/zksim/zksim/election"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/rwlock"
	"github.com/zksim/zksim/semaphore"
	"github.com/zksim/zksim/zkapi"
)

// The good recipes, zksim's own, as the descriptors the harness checks
// them by: what every exhibit is a one-step diff over. They are built
// here, from each recipe's public API, so that a recipe package holds
// only what its users call.

// Mutex is lock.Mutex as a recipe.Lock.
func Mutex() recipe.Lock {
	return recipe.Lock{
		Name: "lock",
		Acquire: func(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error) {
			m, err := lock.New(conn, dir, lock.Options{ID: id})
			if err != nil {
				return nil, err
			}
			return m.Acquire(ctx)
		},
	}
}

// ReentrantMutex is a re-entrant lock.Mutex as a recipe.Lock: each
// acquisition takes the lock twice on one handle (the second time
// without waiting) and its release gives both holds back, the inner one
// first.
func ReentrantMutex() recipe.Lock {
	return recipe.Lock{
		Name: "lock/reentrant",
		Acquire: func(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error) {
			m, err := lock.New(conn, dir, lock.Options{ID: id, Reentrant: true})
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
type twice struct{ recipe.Lease }

func (t twice) Release(ctx context.Context) error {
	return errors.Join(t.Lease.Release(ctx), t.Lease.Release(ctx))
}

// MultiMutex is a lock.MultiMutex as a recipe.Lock: each acquisition
// takes the lock at dir and a second one at dir+"-b", all or nothing.
func MultiMutex() recipe.Lock {
	dirs := func(dir string) []string { return []string{dir, dir + "-b"} }
	return recipe.Lock{
		Name: "lock/multi",
		Acquire: func(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error) {
			mm, err := lock.NewMulti(conn, dirs(dir), lock.Options{ID: id})
			if err != nil {
				return nil, err
			}
			return mm.Acquire(ctx)
		},
		Dirs: dirs,
	}
}

// RWMutex is rwlock.RWMutex as a recipe.Lock.
func RWMutex() recipe.Lock {
	mk := func(read bool) acquireFunc {
		return func(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error) {
			rw, err := rwlock.New(conn, dir, rwlock.Options{ID: id})
			if err != nil {
				return nil, err
			}
			if read {
				return rw.AcquireRead(ctx)
			}
			return rw.Acquire(ctx)
		}
	}
	return recipe.Lock{Name: "rwlock", Acquire: mk(false), AcquireRead: mk(true)}
}

// Semaphore is a semaphore.Semaphore of n leases as a recipe.Lock (with
// Leases n): each acquisition takes one lease at dir for the holder id.
// Its Held has Token and Fenced. The harness checks that at most n hold
// at once, and for n > 1 fences by the lease rather than by token order
// (see package semaphore, "Fencing tokens"). The directory's two
// children, queue and leases, are kept (Keeps): they are containers the
// next member reuses, and one a crash left before its first child is
// never reaped.
func Semaphore(n int) recipe.Lock {
	return recipe.Lock{
		Name:   fmt.Sprintf("semaphore/%d", n),
		Leases: n,
		Keeps:  semaphoreKeeps,
		Acquire: func(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error) {
			s, err := semaphore.New(conn, dir, n, semaphore.Options{ID: id})
			if err != nil {
				return nil, err
			}
			return s.Acquire(ctx)
		},
	}
}

// semaphoreKeeps says whether path is one of the semaphore directory's
// children, "queue" and "leases" (package semaphore's layout), which it
// leaves on purpose.
func semaphoreKeeps(dir, path string) bool {
	return path == dir+"/queue" || path == dir+"/leases"
}

// Election is election.Election as a recipe.Lock: each acquisition is a
// Campaign at dir for the candidate id, and its Held is the Leadership.
// The standard workload so has leaders write to the protected resource
// with their term, and the harness checks the terms (recipe.Lock.Terms)
// beside mutual exclusion, herds and orphans.
func Election() recipe.Lock {
	return recipe.Lock{
		Name: "election",
		Acquire: func(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error) {
			e, err := election.New(conn, dir, election.Options{ID: id})
			if err != nil {
				return nil, err
			}
			l, err := e.Campaign(ctx)
			if err != nil {
				return nil, err // not a nil *Leadership in a non-nil Held
			}
			return l, nil
		},
		Terms: true,
	}
}

// DoubleBarrier is barrier.DoubleBarrier and barrier.Barrier as a
// recipe.Barrier.
func DoubleBarrier() recipe.Barrier {
	return recipe.Barrier{
		Name: "barrier",
		Enter: func(ctx context.Context, conn zkapi.Conn, dir, id string, n int) (recipe.Leaver, error) {
			d, err := barrier.NewDouble(conn, dir, n, barrier.Options{ID: id})
			if err != nil {
				return nil, err
			}
			m, err := d.Enter(ctx)
			if err != nil {
				return nil, err // not a nil *Member in a non-nil Leaver
			}
			return m, nil
		},
		Single: &recipe.Single{
			Set: func(ctx context.Context, conn zkapi.Conn, path string) error {
				return single(ctx, conn, path, (*barrier.Barrier).Set)
			},
			Remove: func(ctx context.Context, conn zkapi.Conn, path string) error {
				return single(ctx, conn, path, (*barrier.Barrier).Remove)
			},
			Wait: func(ctx context.Context, conn zkapi.Conn, path string) error {
				return single(ctx, conn, path, (*barrier.Barrier).Wait)
			},
		},
	}
}

// single runs one method of the barrier.Barrier at path.
func single(ctx context.Context, conn zkapi.Conn, path string, op func(*barrier.Barrier, context.Context) error) error {
	b, err := barrier.New(conn, path)
	if err != nil {
		return err
	}
	return op(b, ctx)
}
