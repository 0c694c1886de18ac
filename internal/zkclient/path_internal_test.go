package zkclient

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestIsPlainPath_VouchesOnlyForGoodPaths: the fast path of the client's
// check (isPlainPath) accepts exactly the plain paths, which the rules
// (clientCheckPath) accept: after the leading '/', names of name bytes,
// none "." or "..", the last not dots only, none empty but a sequential
// create's last. Every path up to 9 bytes long over an alphabet standing
// for name bytes, '.', '/' and a bad byte is tried.
func TestIsPlainPath_VouchesOnlyForGoodPaths(t *testing.T) {
	alphabet := []byte{'a', '.', '/', 0x01}
	buf := []byte{'/'}
	var walk func()
	walk = func() {
		p := string(buf)
		for _, seq := range []bool{false, true} {
			if p == "/" {
				break // clientCheckPath's own case
			}
			got, want := isPlainPath(p, seq), plainSpec(p, seq)
			if err := clientCheckPath(p, seq); want && err != nil {
				t.Fatalf("plain path %q (sequential %t) refused: %v", p, seq, err)
			}
			if got != want {
				t.Fatalf("isPlainPath(%q, %t) = %t, want %t", p, seq, got, want)
			}
		}
		if len(buf) == 9 {
			return
		}
		for _, c := range alphabet {
			buf = append(buf, c)
			walk()
			buf = buf[:len(buf)-1]
		}
	}
	walk()
}

// plainSpec is what isPlainPath answers, for a path that starts with '/'
// and is longer than it, said name by name.
func plainSpec(p string, sequential bool) bool {
	names := strings.Split(p[1:], "/")
	for i, n := range names {
		if strings.Trim(n, "-_.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" {
			return false // a byte other than a name byte
		}
		if n == "" && !(sequential && i == len(names)-1) {
			return false
		}
		if n == "." || n == ".." || (i == len(names)-1 && n != "" && strings.Trim(n, ".") == "") {
			return false // relative, or (left to the rules) dots only at the end
		}
	}
	return true
}

// TestIsPlainPath_EveryByteEverywhere: every byte value, put in every
// place of paths short and long, is judged as plainSpec judges it; so
// are seeded random paths of name bytes, '/' and '.'.
func TestIsPlainPath_EveryByteEverywhere(t *testing.T) {
	check := func(p string) {
		t.Helper()
		for _, seq := range []bool{false, true} {
			if got, want := isPlainPath(p, seq), plainSpec(p, seq); got != want {
				t.Fatalf("isPlainPath(%q, %t) = %t, want %t", p, seq, got, want)
			}
		}
	}
	for _, base := range []string{"/a/b", "/abcdefg", "/abcdefgh", "/aZ09-_.bcdefghijklm/n", "/locks/l/lock-c1_0.1-0000000003", "/abcdefghijklmnopqrs"} {
		for i := 1; i < len(base); i++ {
			for b := range 256 {
				check(base[:i] + string([]byte{byte(b)}) + base[i+1:])
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abcXYZ019-_./."
	for range 20000 {
		p := []byte{'/'}
		for range 1 + rng.IntN(40) {
			p = append(p, alphabet[rng.IntN(len(alphabet))])
		}
		check(string(p))
	}
}
