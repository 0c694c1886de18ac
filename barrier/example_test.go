package barrier_test

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/zksim/zksim/barrier"
	"github.com/zksim/zksim/fakezk"
)

// Three workers start and finish a step together: every Enter returns
// before any Leave does.
func ExampleDoubleBarrier() {
	srv := fakezk.MustServer(fakezk.Config{})
	defer srv.Close()
	ctx := context.Background()
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		events []string
	)
	note := func(e string) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e)
	}
	for i := range 3 {
		conn, err := srv.Connect(fakezk.ConnOptions{})
		if err != nil {
			panic(err)
		}
		d, err := barrier.NewDouble(conn, "/jobs/step1", 3, barrier.Options{ID: fmt.Sprint("w", i)})
		if err != nil {
			panic(err)
		}
		wg.Go(func() {
			m, err := d.Enter(ctx)
			if err != nil {
				panic(err)
			}
			note("in")
			if err := m.Leave(ctx); err != nil {
				panic(err)
			}
			note("out")
		})
	}
	wg.Wait()
	fmt.Println(strings.Join(events, " "))
	// Output:
	// in in in out out out
}
