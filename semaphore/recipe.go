package semaphore

import (
	"context"
	"fmt"

	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/zkapi"
)

// Recipe is a Semaphore of n leases in the shape the harness drives
// (lock.Recipe): each acquisition takes one lease at dir for the holder
// id. Its Held has Token and Fenced. The harness's lock checkers assume
// one holder at a time; a semaphore needs the at-most-N checker that is
// still to come, so run it with n = 1 until then.
func Recipe(n int) lock.Recipe {
	return lock.Recipe{
		Name: fmt.Sprintf("semaphore/%d", n),
		Acquire: func(ctx context.Context, conn zkapi.Conn, dir, id string) (lock.Held, error) {
			s, err := New(conn, dir, n, Options{ID: id})
			if err != nil {
				return nil, err
			}
			return s.Acquire(ctx)
		},
	}
}
