package linearize_test

import (
	"testing"

	"github.com/zksim/zksim/linearize"
)

// history is a well-formed exclusive-lock history of n operations (n/2
// holds) by 5 clients over 4 lock paths, with acquire calls overlapping
// the previous holder's section as waiting clients' do.
func history(n int) []linearize.Hold {
	holds := make([]linearize.Hold, 0, n/2)
	end := map[string]int64{}
	for i := range n / 2 {
		lock := []string{"/a", "/b", "/c", "/d"}[i%4]
		start := end[lock] + 1
		holds = append(holds, linearize.Hold{Client: i % 5, Lock: lock, Call: start - 2, Start: start, End: start + 3})
		end[lock] = start + 3
	}
	return holds
}

func BenchmarkCheckLocks(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		h := history(n)
		b.Run(itoa(n), func(b *testing.B) {
			for b.Loop() {
				if over := linearize.Locks(h, 1); over != nil {
					b.Fatal(over)
				}
			}
		})
	}
}

func itoa(n int) string {
	if n >= 1000 {
		return itoa(n/1000) + "k"
	}
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}
