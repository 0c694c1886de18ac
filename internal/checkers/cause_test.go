package checkers_test

import (
	"fmt"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/linearize"
)

// Every checker words a plain cause from its own history and links it
// step by step, in step order.
func TestCause_PlainFromTheCheckers(t *testing.T) {
	holds := []linearize.Hold{
		{Client: 0, Lock: "/l", Call: 2, Start: 5, End: 9},
		{Client: 1, Lock: "/l", Call: 3, Start: 7, End: -1},
	}
	leases := append(holds, linearize.Hold{Client: 2, Lock: "/l", Call: 4, Start: 8, End: 10})
	barrier := []checkers.Visit{
		{Client: 0, Arrive: 1, Entered: 6, Left: 9, Gone: 9, Passed: 12},
		{Client: 1, Arrive: 2, Entered: 7, Left: 20, Gone: 20, Passed: 21},
	}
	for _, tc := range []struct {
		vs          []check.Violation
		cause, link string
	}{
		{checkers.Exclusion(holds, 1), "c2 acquired /l at step 7 while c1 held it (from step 5 to step 9)",
			"[{5 c1 acquired /l (exclusive) false} {7 c2 acquired /l (exclusive) false}]"},
		{checkers.Exclusion(leases, 2),
			"c3 acquired /l at step 8 while c1 held it (from step 5 to step 9), c2 held it (from step 7 to the end)",
			"[{5 c1 acquired /l (exclusive) false} {7 c2 acquired /l (exclusive) false} {8 c3 acquired /l (exclusive) false}]"},
		{checkers.Tokens([]checkers.Accepted{{Client: 0, Token: 2, Step: 20, Zxid: 5}, {Client: 1, Token: 1, Step: 24, Zxid: 6}}),
			"the resource took c2's token 1 at step 24 though c1's 2 came before it at step 20: the write was not fenced",
			"[{20 c1 wrote with token 2 false} {24 c2 wrote with the older token 1 false}]"},
		{checkers.BarrierLeaves(barrier), "c1 passed Leave at step 12 while c2, inside since step 7, left only at step 20",
			"[{7 c2 entered false} {12 c1 passed Leave before c2 left false}]"},
		{checkers.BarrierWaits([]checkers.SingleWait{{Client: 1, Call: 3, Return: 5}}, 9),
			"c2's Wait, called at step 3, returned at step 5 with the barrier still up: Remove was called only at step 9",
			"[{3 c2 called Wait false} {5 c2 passed the raised barrier false}]"},
	} {
		if len(tc.vs) != 1 {
			t.Fatalf("want one violation: %v", tc.vs)
		}
		v := tc.vs[0]
		if v.Cause != tc.cause || fmt.Sprint(v.Chain) != tc.link {
			t.Errorf("%s:\n cause %q\n want  %q\n chain %v\n want  %s", v.Class, v.Cause, tc.cause, v.Chain, tc.link)
		}
	}
}

// A change over its herd limit only by stale wake-ups (a client whose
// session was replaced while it waited) is a StaleWakeup note, not a
// herd; one over the limit without them is a herd that counts only the
// fresh wake-ups.
func TestWakeups_StaleIsANote(t *testing.T) {
	one := func(int64) int { return 1 }
	vs, _ := checkers.Wakeups([]checkers.Wakeup{{Client: 0, Cause: 5, Step: 8}, {Client: 1, Cause: 5, Step: 9, Stale: true}}, one)
	if len(vs) != 1 || vs[0].Class != check.StaleWakeup || !checkers.Note(vs[0].Class) {
		t.Fatalf("one fresh and one stale wake-up: %v", vs)
	}
	want := "c2 woke for a queue place of a session it had replaced while waiting: not a herd"
	if vs[0].Cause != want {
		t.Errorf("cause %q, want %q", vs[0].Cause, want)
	}
	vs, _ = checkers.Wakeups([]checkers.Wakeup{{Client: 0, Cause: 5, Step: 8}, {Client: 1, Cause: 5, Step: 9},
		{Client: 2, Cause: 5, Step: 10, Stale: true}}, one)
	if len(vs) != 1 || vs[0].Class != check.Herd {
		t.Fatalf("two fresh and one stale wake-up: %v", vs)
	}
	want = "one change (zxid 5) woke c1 and c2; at most 1 could proceed, so 1 woke for nothing (and c3 woke stale, on a replaced session)"
	if vs[0].Cause != want || vs[0].Detail != "one change (zxid 5) woke 2 clients, at most 1 could proceed" {
		t.Errorf("herd %q / %q", vs[0].Detail, vs[0].Cause)
	}
	if checkers.Severity(check.StaleWakeup) <= checkers.Severity(check.Herd) {
		t.Error("a note ranks below every violation")
	}
}
