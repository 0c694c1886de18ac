package semaphore_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/semaphore"
)

// Two leases over one directory: a third client is refused by TryAcquire
// until a holder releases.
func ExampleSemaphore() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := fakezk.MustServer(fakezk.Config{})
	defer srv.Close()
	var leases []recipe.Lease
	for _, id := range []string{"a", "b", "c"} {
		conn, err := srv.Connect(fakezk.ConnOptions{})
		if err != nil {
			fmt.Println(err)
			return
		}
		s, err := semaphore.New(conn, "/semaphores/workers", 2, semaphore.Options{ID: id})
		if err != nil {
			fmt.Println(err)
			return
		}
		l, err := s.TryAcquire(ctx)
		switch {
		case errors.Is(err, recipe.ErrWouldBlock):
			fmt.Println(id, "would block")
			if err := leases[0].Release(ctx); err != nil {
				fmt.Println(err)
				return
			}
			if l, err = s.Acquire(ctx); err != nil {
				fmt.Println(err)
				return
			}
			fmt.Println(id, "holds after a release")
		case err != nil:
			fmt.Println(err)
			return
		default:
			fmt.Println(id, "holds")
		}
		leases = append(leases, l)
	}
	for _, l := range leases[1:] {
		if err := l.Release(ctx); err != nil {
			fmt.Println(err)
		}
	}
	// Output:
	// a holds
	// b holds
	// c would block
	// c holds after a release
}
