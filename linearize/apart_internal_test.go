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
