package semaphore

import (
	"context"
	"fmt"

	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// Recipe is a Semaphore of n leases in the shape the harness drives
// (recipe.Lock, with Leases n): each acquisition takes one lease at dir
// for the holder id. Its Held has Token and Fenced. The harness checks
// that at most n hold at once, and for n > 1 fences by the lease rather
// than by token order (see the package doc, "Fencing tokens"). The
// directory's two children, queue and leases, are kept (Keeps): they are
// containers the next member reuses, and one a crash left before its
// first child is never reaped.
func Recipe(n int) recipe.Lock {
	return recipe.Lock{
		Name:   fmt.Sprintf("semaphore/%d", n),
		Leases: n,
		Keeps:  keeps,
		Acquire: func(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error) {
			s, err := New(conn, dir, n, Options{ID: id})
			if err != nil {
				return nil, err
			}
			return s.Acquire(ctx)
		},
	}
}

// keeps says whether path is one of the semaphore directory's children,
// which it leaves on purpose.
func keeps(dir, path string) bool {
	return path == dir+"/"+queueDir || path == dir+"/"+leasesDir
}
