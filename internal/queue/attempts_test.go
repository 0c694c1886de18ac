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

// NextBase hands out the guids Next would, in turn with it, and the path
// Join creates for each: "<dir>/<kind>-<guid>-".
func TestAttempts_NextBase(t *testing.T) {
	var a queue.Attempts
	for i, want := range []string{"c_1.1", "c_1.2", "c_1.3", "c_1.4", "c_1.5", "c_1.6", "c_1.7", "c_1.8", "c_1.9", "c_1.10", "c_1.11"} {
		if i%3 == 1 {
			if g := a.Next("c_1"); g != want {
				t.Fatalf("Next = %q, want %q", g, want)
			}
			continue
		}
		base, guid := a.NextBase("/locks/l", "lock", "c_1")
		if guid != want || base != "/locks/l/lock-"+want+"-" {
			t.Fatalf("NextBase = %q, %q; want %q and its path", base, guid, want)
		}
	}
}
