package linearize

import (
	"testing"

	"pgregory.net/rapid"
)

// The fast path never passes a history porcupine would reject.
func TestApart_AgreesWithPorcupine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 8).Draw(t, "holds")
		var holds []Hold
		for i := range n {
			start := rapid.Int64Range(1, 30).Draw(t, "start")
			h := Hold{
				Client: i, Lock: rapid.SampledFrom([]string{"/a", "/b"}).Draw(t, "lock"),
				Mode:  rapid.SampledFrom([]Mode{Read, Write}).Draw(t, "mode"),
				Call:  start - rapid.Int64Range(0, 3).Draw(t, "wait"),
				Start: start,
				End:   start + rapid.Int64Range(1, 6).Draw(t, "len"),
			}
			holds = append(holds, h)
		}
		if apart(holds) {
			if !checkWithPorcupine(holds) {
				t.Fatalf("fast path passed a history porcupine rejects: %+v", holds)
			}
		}
	})
}

// BenchmarkPorcupine is the search alone (what CheckLocks runs when the
// fast path cannot decide), on the same histories as BenchmarkCheckLocks.
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
				if !checkWithPorcupine(holds) {
					b.Fatal("not linearizable")
				}
			}
		})
	}
}
