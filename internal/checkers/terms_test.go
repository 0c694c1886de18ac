package checkers_test

import (
	"slices"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/linearize"
)

// leader is a leadership of client c in term t from step start.
func leader(c int, t, start int64) linearize.Hold {
	return linearize.Hold{Client: c, Lock: "/e", Start: start, End: start + 5, Token: t, HasToken: true}
}

func classes(vs []check.Violation) []check.Class {
	var out []check.Class
	for _, v := range vs {
		out = append(out, v.Class)
	}
	return out
}

// Terms growing with the leaderships, each write from the term then
// current: no violation, whatever order the holds were recorded in.
// Holds without a term (the token read failed) and reads are not
// leaderships.
func TestTerms_Growing(t *testing.T) {
	holds := []linearize.Hold{leader(1, 9, 20), leader(0, 4, 10), leader(2, 15, 30),
		{Client: 3, Start: 25, End: 26}, {Client: 4, Mode: linearize.Read, Start: 27, End: 28, Token: 1, HasToken: true}}
	writes := []checkers.Accepted{{Client: 0, Token: 4, Call: 12, Step: 13, Zxid: 5}, {Client: 1, Token: 9, Call: 22, Step: 23, Zxid: 8}}
	if vs := checkers.Terms(holds, writes); len(vs) != 0 {
		t.Fatalf("violations: %v", vs)
	}
}

func TestTerms_SharedTerm(t *testing.T) {
	vs := checkers.Terms([]linearize.Hold{leader(0, 4, 10), leader(1, 4, 20)}, nil)
	if !slices.Equal(classes(vs), []check.Class{check.SharedTerm}) || !slices.Equal(vs[0].Steps, []int{10, 20}) {
		t.Fatalf("violations: %v", vs)
	}
	if want := "two leaders in term 4: c1 from step 10 and c2 from step 20"; vs[0].Detail != want {
		t.Fatalf("detail %q, want %q", vs[0].Detail, want)
	}
}

// A term below the highest begun before it is out of order, also when a
// higher term came between.
func TestTerms_Order(t *testing.T) {
	vs := checkers.Terms([]linearize.Hold{leader(0, 4, 10), leader(1, 9, 20), leader(2, 6, 30)}, nil)
	if !slices.Equal(classes(vs), []check.Class{check.TermOrder}) || !slices.Equal(vs[0].Steps, []int{20, 30}) {
		t.Fatalf("violations: %v", vs)
	}
}

// A write sent after a higher term began and accepted is stale, though
// its token is above every token accepted before it (so Tokens cannot
// tell); a stale write Tokens reports is not reported again, and a write
// sent before the higher term began is not stale.
func TestTerms_StaleWrite(t *testing.T) {
	holds := []linearize.Hold{leader(0, 4, 10), leader(1, 9, 20)}
	stale := []checkers.Accepted{{Client: 0, Token: 4, Call: 21, Step: 22, Zxid: 7}}
	vs := checkers.Terms(holds, stale)
	if !slices.Equal(classes(vs), []check.Class{check.Fencing}) || !slices.Equal(vs[0].Steps, []int{20, 22}) {
		t.Fatalf("violations: %v", vs)
	}
	afterNewer := append([]checkers.Accepted{{Client: 1, Token: 9, Call: 24, Step: 25, Zxid: 6}}, stale...)
	if vs := checkers.Terms(holds, afterNewer); len(vs) != 0 || len(checkers.Tokens(afterNewer)) != 1 {
		t.Fatalf("Terms %v; Tokens %v", vs, checkers.Tokens(afterNewer))
	}
	early := []checkers.Accepted{{Client: 0, Token: 4, Call: 19, Step: 22, Zxid: 7}}
	if vs := checkers.Terms(holds, early); len(vs) != 0 {
		t.Fatalf("a write sent before term 9 began: %v", vs)
	}
}
