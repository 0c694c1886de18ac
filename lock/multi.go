package lock

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// MultiMutex takes several locks all or nothing, like Curator's
// InterProcessMultiLock. It acquires them in canonical (path) order, so two
// MultiMutexes over overlapping sets cannot deadlock, and releases them in
// reverse order.
type MultiMutex struct {
	locks []*Mutex
}

// NewMulti returns a handle on the locks at dirs. Duplicates are an error.
func NewMulti(conn zkapi.Conn, dirs []string, opts Options) (*MultiMutex, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%w: no lock paths", recipe.ErrConfig)
	}
	sorted := append([]string(nil), dirs...)
	sort.Strings(sorted)
	mm := &MultiMutex{}
	for i, d := range sorted {
		if i > 0 && d == sorted[i-1] {
			return nil, fmt.Errorf("%w: lock path %s given twice", recipe.ErrConfig, d)
		}
		m, err := New(conn, d, opts)
		if err != nil {
			return nil, err
		}
		mm.locks = append(mm.locks, m)
	}
	return mm, nil
}

// Acquire takes every lock before ctx ends (one deadline for the whole set)
// or none: on failure the locks already taken are released. A lock may
// be taken on a new session after the old one expired (its node not
// being held yet); the locks taken before then went with the old session,
// so the set is then lost (recipe.ErrLost), not held in part.
func (mm *MultiMutex) Acquire(ctx context.Context) (*MultiLease, error) {
	ml := &MultiLease{}
	for _, m := range mm.locks {
		l, err := m.acquire(ctx, queue.Wait)
		if err == nil {
			ml.leases = append(ml.leases, l)
			err = ml.Check()
		}
		if err != nil {
			return nil, errors.Join(err, ml.Release(ctx))
		}
	}
	return ml, nil
}

// MultiLease is a held set of locks.
type MultiLease struct {
	leases []*lease
}

// Leases returns the held leases in acquisition (path) order.
func (ml *MultiLease) Leases() []recipe.Lease {
	ls := make([]recipe.Lease, len(ml.leases))
	for i, l := range ml.leases {
		ls[i] = l
	}
	return ls
}

// Check reports the first lease that is no longer held.
func (ml *MultiLease) Check() error {
	for _, l := range ml.leases {
		if err := l.Check(); err != nil {
			return fmt.Errorf("lock %s: %w", l.m.q.Dir, err)
		}
	}
	return nil
}

// Release releases every lock in reverse order, returning all errors.
func (ml *MultiLease) Release(ctx context.Context) error {
	var errs []error
	for i := len(ml.leases) - 1; i >= 0; i-- {
		errs = append(errs, ml.leases[i].Release(ctx))
	}
	ml.leases = nil
	return errors.Join(errs...)
}
