package queue_test

import (
	"sync"
	"testing"

	"github.com/zksim/zksim/internal/queue"
)

// Attempts numbers a holder's attempts from 1, uniquely under concurrent
// use: a guid shared by two attempts would let one adopt the other's node.
func TestAttempts_UniquePerAttempt(t *testing.T) {
	var a queue.Attempts
	if got := a.Next("c1"); got != "c1.1" {
		t.Fatalf("first attempt %q, want c1.1", got)
	}
	var mu sync.Mutex
	seen := map[string]bool{"c1.1": true}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				g := a.Next("c1")
				mu.Lock()
				if seen[g] {
					t.Errorf("guid %s handed out twice", g)
				}
				seen[g] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != 801 {
		t.Errorf("%d guids, want 801", len(seen))
	}
}
