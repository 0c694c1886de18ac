package sim

import "testing"

// mod answers as the division it stands for, for every divisor it names
// and a few it does not.
func TestMod_AsDivision(t *testing.T) {
	r := seeded{s: 7}
	for range 20000 {
		r.s += 0x9e3779b97f4a7c15
		z := r.s * 0xbf58476d1ce4e5b9
		for n := 1; n <= 130; n++ {
			if got, want := mod(z, n), int(z%uint64(n)); got != want {
				t.Fatalf("mod(%#x, %d) = %d, want %d", z, n, got, want)
			}
		}
	}
}
