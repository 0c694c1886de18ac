package linearize

import (
	"testing"

	"github.com/anishathalye/porcupine"
	"pgregory.net/rapid"
)

// porcupineOK is porcupine's verdict on holds, searched without bound (the
// histories of these tests are small).
func porcupineOK(t interface{ Fatalf(string, ...any) }, holds []Hold) bool {
	res, _, undecided := porcupineLocks(holds, 0, 1<<40)
	if undecided || res == porcupine.Unknown {
		t.Fatalf("porcupine undecided on %+v", holds)
	}
	return res == porcupine.Ok
}

// drawHolds draws a history that may break exclusion: holds on two locks
// in every mode, some touching, some of zero length, some never ended, a
// client's holds in sequence (it waits for a release before acquiring
// again) and clients free to overlap.
func drawHolds(t *rapid.T) []Hold {
	n := rapid.IntRange(1, 8).Draw(t, "holds")
	clients := rapid.IntRange(1, n).Draw(t, "clients")
	const never = -1
	next := make([]int64, clients) // a client's earliest next call
	var holds []Hold
	for range n {
		c := rapid.IntRange(0, clients-1).Draw(t, "client")
		if next[c] == never { // it still holds: it acquires no more
			continue
		}
		call := next[c] + rapid.Int64Range(0, 6).Draw(t, "after")
		h := Hold{
			Client: c, Lock: rapid.SampledFrom([]string{"/a", "/b"}).Draw(t, "lock"),
			Mode:  rapid.SampledFrom([]Mode{Exclusive, Read, Write}).Draw(t, "mode"),
			Call:  call,
			Start: call + rapid.Int64Range(0, 3).Draw(t, "wait"),
			End:   -1,
		}
		if rapid.IntRange(0, 5).Draw(t, "ended?") > 0 {
			h.End = h.Start + rapid.Int64Range(0, 6).Draw(t, "len")
			next[c] = h.End + 1
		} else {
			next[c] = never
		}
		holds = append(holds, h)
	}
	return holds
}

// The interval check and porcupine's search agree on every history: the
// check is exact, not a fast path beside the search.
func TestLocks_AgreesWithPorcupine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		holds := drawHolds(t)
		got, want := Locks(holds, 1) == nil, porcupineOK(t, holds)
		if got != want {
			t.Fatalf("interval check says linearizable=%v, porcupine %v: %+v", got, want, holds)
		}
	})
}

// BenchmarkPorcupine is porcupine's search alone (Locks no longer
// needs it to decide), on the same histories as BenchmarkCheckLocks.
func BenchmarkPorcupine(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		var holds []Hold
		end := map[string]int64{}
		for i := range n / 2 {
			lock := []string{"/a", "/b", "/c", "/d"}[i%4]
			start := end[lock] + 1
			holds = append(holds, Hold{Client: i % 5, Lock: lock, Call: start - 2, Start: start, End: start + 3})
			end[lock] = start + 3
		}
		name := "1k"
		if n == 10000 {
			name = "10k"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if !porcupine.CheckOperations(lockModel, lockOps(holds)) {
					b.Fatal("not linearizable")
				}
			}
		})
	}
}
