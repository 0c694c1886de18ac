package queue

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// seqSpec is parseSeq said plainly: ten digits, or '-' and nine or ten,
// read as a number within int32.
func seqSpec(s string) (int64, bool) {
	digits := s
	if len(s) > 0 && s[0] == '-' {
		digits = s[1:]
	}
	if len(digits) < 9 || len(digits) > 10 || (len(s) != 10 && len(s) != 11) {
		return 0, false
	}
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < math.MinInt32 || n > math.MaxInt32 {
		return 0, false
	}
	return n, true
}

// TestParseSeq_AsSpecified: parseSeq reads what seqSpec reads, on every
// byte value put in every place of sequence numbers of each shape, the
// int32 bounds and their neighbours, and seeded random digit strings.
func TestParseSeq_AsSpecified(t *testing.T) {
	check := func(s string) {
		t.Helper()
		n, ok := parseSeq(s)
		wn, wok := seqSpec(s)
		if n != wn || ok != wok {
			t.Fatalf("parseSeq(%q) = %d, %t; want %d, %t", s, n, ok, wn, wok)
		}
	}
	bases := []string{"0000000000", "0123456789", "9876543210", "2147483647", "2147483648",
		"-000000005", "-2147483648", "-2147483649", "-999999999", "1999999999"}
	for _, base := range bases {
		check(base)
		for i := range len(base) {
			for b := range 256 {
				check(base[:i] + string([]byte{byte(b)}) + base[i+1:])
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		n := rng.Int64N(1 << 34)
		s := strconv.FormatInt(n, 10)
		for len(s) < 10 {
			s = "0" + s
		}
		if rng.IntN(3) == 0 {
			s = "-" + s[rng.IntN(2):]
		}
		check(s)
	}
}

// parseSpec is parse said plainly: the kind up to the first '-', a
// guid that is not empty up to the second, and a sequence number after.
func parseSpec(name string) (kind, guid string, seq int64, ok bool) {
	kind, rest, ok := strings.Cut(name, "-")
	if !ok {
		return "", "", 0, false
	}
	guid, digits, ok := strings.Cut(rest, "-")
	if !ok || guid == "" {
		return "", "", 0, false
	}
	seq, ok = seqSpec(digits)
	if !ok {
		return "", "", 0, false
	}
	return kind, guid, seq, true
}

// TestParse_AsSpecified: parse reads what parseSpec reads, on names with
// a '-' or another byte put in every place of names of each shape.
func TestParse_AsSpecified(t *testing.T) {
	bases := []string{"lock-c1_0.1-0000000007", "read-g--000000005", "-g-0000000001", "lock--0000000001",
		"lock-g-h-0000000001", "x", "", "-", "--", "a-b-", "lock-c1.2"}
	for _, base := range bases {
		names := []string{base}
		for i := range len(base) {
			for _, b := range []byte{'-', 'x', '0'} {
				names = append(names, base[:i]+string([]byte{b})+base[i+1:], base[:i]+string([]byte{b})+base[i:])
			}
		}
		for _, name := range names {
			m, ok := parse(name)
			kind, guid, seq, wok := parseSpec(name)
			if ok != wok || ok && (m.Name != name || m.Kind() != kind || m.GUID() != guid || m.Seq != seq) {
				t.Fatalf("parse(%q) = %+v, %t; want kind %q guid %q seq %d, %t", name, m, ok, kind, guid, seq, wok)
			}
		}
	}
}
