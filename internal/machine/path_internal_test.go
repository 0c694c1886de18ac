package machine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestValidatePath_FastPathAgrees: validatePath's one-pass check of plain
// ASCII paths answers as the whole check (checkPath) does, error text
// included, on hand-picked paths and on random ones over an alphabet of
// the bytes that matter (separators, dots, control and non-ASCII
// characters).
func TestValidatePath_FastPathAgrees(t *testing.T) {
	paths := []string{"", "/", "//", "/a", "/a/", "/a//b", "/.", "/..", "/a/.", "/a/../b", "/...", "/.a",
		"/a b", "/a\x00", "/a\x1f", "/a\x7f", "/a~", "/é", "/a/\u00a0", "/\ufff0", "a/b", "/locks/l/write-c1_0-0000000001"}
	rng := rand.New(rand.NewPCG(26, 1))
	alphabet := []string{"/", ".", "a", "-", " ", "~", "\x00", "\x1f", "\x7f", "é", "\ufff5"}
	for range 20000 {
		p := ""
		for range 1 + rng.IntN(7) {
			p += alphabet[rng.IntN(len(alphabet))]
		}
		paths = append(paths, p)
	}
	for _, p := range paths {
		if got, want := fmt.Sprint(validatePath(p)), fmt.Sprint(checkPath(p)); got != want {
			t.Errorf("validatePath(%q) = %s, want %s", p, got, want)
		}
	}
}

// A sequential node's name ends in its counter as Java's %010d prints
// it, the sign counted in the ten: sequentialPath against fmt's %010d.
func TestSequentialPath_AsJava(t *testing.T) {
	for _, n := range []int32{0, 1, 9, 10, 99, 12345, 1000000000, math.MaxInt32, -1, -12, math.MinInt32} {
		if got, want := sequentialPath("/q/n-", n), fmt.Sprintf("/q/n-%010d", n); got != want {
			t.Errorf("sequentialPath(%d) = %q, want %q", n, got, want)
		}
	}
}
