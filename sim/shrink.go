package sim

// Shrink minimizes a failing decision list by delta debugging: fails
// reports whether a list still fails the same way. It tries, in turn, the
// shortest failing prefix, deleting chunks of halving size, setting single
// decisions to 0 and halving them, and keeps every change that still
// fails. It is deterministic and makes at most budget calls to fails.
func Shrink(d []int, fails func([]int) bool, budget int) []int {
	calls := 0
	try := func(c []int) bool {
		if calls >= budget {
			return false
		}
		calls++
		return fails(c)
	}
	d = append([]int(nil), d...)
	// Shortest failing prefix (the rest of a run then chooses 0).
	lo, hi := 0, len(d)
	for lo < hi {
		mid := (lo + hi) / 2
		if try(d[:mid]) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	d = d[:hi]
	for chunk := len(d) / 2; chunk >= 1; chunk /= 2 {
		for i := 0; i+chunk <= len(d); {
			c := append(append([]int(nil), d[:i]...), d[i+chunk:]...)
			if try(c) {
				d = c
			} else {
				i += chunk
			}
		}
	}
	for i := range d {
		for d[i] > 0 {
			c := append([]int(nil), d...)
			c[i] = 0
			if try(c) {
				d = c
				break
			}
			c[i] = d[i] / 2
			if c[i] == d[i] || !try(c) {
				break
			}
			d = c
		}
	}
	return d
}
