package checkers_test

import (
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/checkers"
)

// visit is a Visit of client c: arrived, entered, left (= gone), passed.
func visit(c int, arrive, entered, left, passed int64) checkers.Visit {
	return checkers.Visit{Client: c, Arrive: arrive, Entered: entered, Left: left, Gone: left, Passed: passed}
}

func TestBarrierEnters_AllArrivedFirst(t *testing.T) {
	h := []checkers.Visit{visit(0, 1, 5, 8, 12), visit(1, 2, 6, 9, 13), visit(2, 3, 4, 10, 11)}
	if vs := checkers.BarrierEnters(h, 3); len(vs) != 0 {
		t.Fatal(vs)
	}
}

func TestBarrierEnters_BeforeLastArrival(t *testing.T) {
	h := []checkers.Visit{visit(0, 1, 5, 8, -1), visit(1, 2, 6, 9, -1), visit(2, 7, 10, 11, -1)}
	vs := checkers.BarrierEnters(h, 3)
	if len(vs) != 1 || vs[0].Class != check.BarrierEnter {
		t.Fatalf("got %v, want c1 passing Enter at step 5 before c3 arrived", vs)
	}
}

// A member gone (its session ended) before the last arrival does not
// count: the others must wait for another.
func TestBarrierEnters_GoneDoesNotCount(t *testing.T) {
	h := []checkers.Visit{visit(0, 1, -1, 3, -1), visit(1, 2, 6, 9, -1), visit(2, 4, 5, 10, -1)}
	h[0].Entered = -1
	if vs := checkers.BarrierEnters(h, 3); len(vs) != 1 {
		t.Fatalf("got %v, want one violation", vs)
	}
}

func TestBarrierLeaves_AfterAllLeft(t *testing.T) {
	h := []checkers.Visit{visit(0, 1, 5, 8, 12), visit(1, 2, 6, 9, 13), visit(2, 3, 4, 10, 11)}
	if vs := checkers.BarrierLeaves(h); len(vs) != 0 {
		t.Fatal(vs)
	}
}

func TestBarrierLeaves_BeforeOneLeft(t *testing.T) {
	h := []checkers.Visit{visit(0, 1, 5, 8, 9), visit(1, 2, 6, 10, 13), visit(2, 3, 4, 7, 11)}
	vs := checkers.BarrierLeaves(h)
	if len(vs) != 1 || vs[0].Class != check.BarrierLeave {
		t.Fatalf("got %v, want c1 passing Leave at step 9 before c2 left at 10", vs)
	}
}

// A member of the next round is not one of this round's.
func TestBarrierLeaves_NextRoundApart(t *testing.T) {
	h := []checkers.Visit{visit(0, 1, 3, 5, 8), visit(1, 2, 4, 6, 7), visit(1, 9, 12, -1, -1), visit(0, 10, 11, -1, -1)}
	if vs := checkers.BarrierLeaves(h); len(vs) != 0 {
		t.Fatal(vs)
	}
}

func TestBarrierWaits(t *testing.T) {
	waits := []checkers.SingleWait{{Client: 1, Call: 1, Return: 9}, {Client: 2, Call: 2, Return: -1}}
	if vs := checkers.BarrierWaits(waits, 8); len(vs) != 0 {
		t.Fatal(vs)
	}
	if vs := checkers.BarrierWaits(waits, 10); len(vs) != 1 || vs[0].Class != check.BarrierWait {
		t.Fatalf("got %v, want a wait passed before Remove", vs)
	}
}
