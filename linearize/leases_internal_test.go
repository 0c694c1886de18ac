package linearize

import (
	"testing"

	"github.com/anishathalye/porcupine"
	"pgregory.net/rapid"
)

// drawLeaseHolds draws a semaphore history: up to 10 holds of up to 6
// clients, each client's in sequence, on a short clock so that holds
// often start, end or have zero length at one instant; some reads, some
// never ended.
func drawLeaseHolds(t *rapid.T) []Hold {
	n := rapid.IntRange(1, 10).Draw(t, "holds")
	clients := rapid.IntRange(1, 6).Draw(t, "clients")
	const never = -1
	next := make([]int64, clients)
	var holds []Hold
	for range n {
		c := rapid.IntRange(0, clients-1).Draw(t, "client")
		if next[c] == never {
			continue
		}
		call := next[c] + rapid.Int64Range(0, 2).Draw(t, "after")
		h := Hold{Client: c, Lock: "/s", Call: call, Start: call + rapid.Int64Range(0, 2).Draw(t, "wait"), End: -1}
		if rapid.IntRange(0, 9).Draw(t, "read?") == 0 {
			h.Mode = Read
		}
		if rapid.IntRange(0, 5).Draw(t, "ended?") > 0 {
			h.End = h.Start + rapid.Int64Range(0, 3).Draw(t, "len")
			next[c] = h.End + 1
		} else {
			next[c] = never
		}
		holds = append(holds, h)
	}
	return holds
}

// The sweep and porcupine's search over the semaphore model agree on
// every history, for every N: the sweep is exact.
func TestLeases_AgreesWithPorcupine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		holds := drawLeaseHolds(t)
		if rapid.Bool().Draw(t, "two locks?") {
			holds = append(holds, drawHolds(t)...)
		}
		n := rapid.IntRange(2, 3).Draw(t, "leases")
		res, _, undecided := porcupineLocks(holds, n, 1<<40)
		if undecided || res == porcupine.Unknown {
			t.Fatalf("porcupine undecided on %+v", holds)
		}
		if got, want := Locks(holds, n) == nil, res == porcupine.Ok; got != want {
			t.Fatalf("sweep says linearizable=%v with %d leases, porcupine %v: %+v", got, n, want, holds)
		}
	})
}
