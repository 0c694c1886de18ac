package barrier_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/zksim/zksim/barrier"
	"github.com/zksim/zksim/fakezk"
)

// Three workers start and finish a computation together.
func ExampleDoubleBarrier() {
	srv := fakezk.MustServer(fakezk.Config{})
	defer srv.Close()
	ctx := context.Background()
	var wg sync.WaitGroup
	var mu sync.Mutex
	entered := 0
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
			mu.Lock()
			entered++
			mu.Unlock()
			if err := m.Leave(ctx); err != nil {
				panic(err)
			}
		})
	}
	wg.Wait()
	fmt.Println("entered:", entered)
	// Output:
	// entered: 3
}
