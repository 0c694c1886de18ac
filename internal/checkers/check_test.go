package checkers_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/linearize"
)

func TestExclusion_Overlap(t *testing.T) {
	ok := []linearize.Hold{
		{Client: 0, Lock: "/l", Call: 0, Start: 1, End: 3},
		{Client: 1, Lock: "/l", Call: 0, Start: 4, End: 6},
		{Client: 2, Lock: "/other", Call: 0, Start: 2, End: 5},
	}
	if vs := checkers.Exclusion(ok, 1); len(vs) != 0 {
		t.Fatalf("disjoint holds reported: %v", vs)
	}
	bad := append(ok, linearize.Hold{Client: 3, Lock: "/l", Call: 0, Start: 2, End: 5})
	vs := checkers.Exclusion(bad, 1)
	if len(vs) == 0 || vs[0].Class != check.MutualExclusion || !strings.Contains(vs[0].Detail, "c1") {
		t.Fatalf("overlap not reported: %v", vs)
	}
}

func TestExclusion_ReadersShare(t *testing.T) {
	holds := []linearize.Hold{
		{Client: 0, Lock: "/l", Mode: linearize.Read, Start: 1, End: 5},
		{Client: 1, Lock: "/l", Mode: linearize.Read, Start: 2, End: 6},
		{Client: 2, Lock: "/l", Mode: linearize.Write, Start: 7, End: 8},
		{Client: 3, Lock: "/l", Mode: linearize.Write, Start: 9, End: -1},
	}
	if vs := checkers.Exclusion(holds, 1); len(vs) != 0 {
		t.Fatalf("%v", vs)
	}
	holds = append(holds, linearize.Hold{Client: 4, Lock: "/l", Mode: linearize.Read, Start: 7, End: 8})
	if vs := checkers.Exclusion(holds, 1); len(vs) == 0 || vs[0].Class != check.RWExclusion {
		t.Fatal("reader beside a writer not reported")
	}
}

func TestWakeupsTokensOrphans(t *testing.T) {
	vs, counts := checkers.Wakeups([]checkers.Wakeup{{Client: 0, Cause: 5}, {Client: 1, Cause: 5}, {Client: 2, Cause: 7}, {Client: 3, Cause: -1}},
		func(int64) int { return 1 })
	if len(vs) != 1 || counts[5] != 2 || counts[7] != 1 {
		t.Fatalf("herd: %v %v", vs, counts)
	}
	if vs := checkers.Tokens([]checkers.Accepted{{Token: 3}, {Token: 5}, {Token: 4}}); len(vs) != 1 || vs[0].Class != check.Fencing {
		t.Fatalf("fencing: %v", vs)
	}
	// The order that counts is the resource's (Zxid), not the order the
	// writes were recorded in.
	recorded := []checkers.Accepted{{Token: 5, Zxid: 20}, {Token: 3, Zxid: 10}, {Token: 7, Zxid: 30}}
	if vs := checkers.Tokens(recorded); len(vs) != 0 {
		t.Fatalf("fencing by zxid: %v", vs)
	}
	if recorded[0].Token != 5 {
		t.Fatal("Tokens reordered its argument")
	}
	if vs := checkers.Tokens([]checkers.Accepted{{Token: 3, Zxid: 20}, {Token: 5, Zxid: 10}}); len(vs) != 1 {
		t.Fatalf("stale token accepted later not reported: %v", vs)
	}
	if vs := checkers.Orphans("/l", []string{"lock-a-0000000001"}); len(vs) != 1 {
		t.Fatal("orphan not reported")
	}
}

func TestRegister(t *testing.T) {
	good := []linearize.RegisterOp{
		{Client: 0, Value: "a", Expect: 0, Ok: true, Version: 1, Call: 0, Return: 2},
		{Client: 1, Value: "b", Expect: 0, Ok: false, Call: 1, Return: 3},
		{Client: 1, Read: true, Value: "a", Version: 1, Call: 4, Return: 5},
		{Client: 2, Value: "c", Expect: -1, Unknown: true, Call: 6, Return: 7},
		{Client: 0, Read: true, Value: "c", Version: 2, Call: 8, Return: 9},
	}
	if vs := checkers.Register(good); vs != nil {
		t.Fatalf("%v", vs)
	}
	stale := append(good, linearize.RegisterOp{Client: 1, Read: true, Value: "a", Version: 1, Call: 10, Return: 11})
	if vs := checkers.Register(stale); vs == nil {
		t.Fatal("stale read after a newer one not reported")
	}
}

// A run is reported by its worst class: exclusion before liveness before
// herd; undecided and unknown classes rank last.
func TestWorst_OrdersClasses(t *testing.T) {
	for _, c := range []struct {
		classes []check.Class
		want    check.Class
	}{
		{[]check.Class{check.Herd, check.Deadlock, check.MutualExclusion}, check.MutualExclusion},
		{[]check.Class{check.Orphan, check.Fencing}, check.Fencing},
		{[]check.Class{"made-up", check.Undecided, check.Herd}, check.Herd},
	} {
		if got := checkers.Worst(c.classes); got != c.want {
			t.Errorf("Worst(%v) = %s, want %s", c.classes, got, c.want)
		}
	}
}

// Each checker blames the steps of what it found: the two holds'
// starts, the wakeups of one change, the two writes.
func TestViolation_Steps(t *testing.T) {
	holds := []linearize.Hold{
		{Client: 0, Lock: "/l", Call: 2, Start: 5, End: 9},
		{Client: 1, Lock: "/l", Call: 3, Start: 7, End: 12},
	}
	herd, _ := checkers.Wakeups([]checkers.Wakeup{{Client: 0, Cause: 5, Step: 11}, {Client: 1, Cause: 5, Step: 8}, {Client: 2, Cause: 7, Step: 3}},
		func(int64) int { return 1 })
	fencing := checkers.Tokens([]checkers.Accepted{{Client: 0, Token: 2, Step: 20, Zxid: 5}, {Client: 1, Token: 1, Step: 14, Zxid: 6}})
	for _, tc := range []struct {
		vs   []check.Violation
		want string
	}{
		{checkers.Exclusion(holds, 1), "[5 7]"},
		{herd, "[8 11]"},
		{fencing, "[14 20]"},
	} {
		if len(tc.vs) != 1 || fmt.Sprint(tc.vs[0].Steps) != tc.want {
			t.Errorf("%v: want steps %s", tc.vs, tc.want)
		}
	}
}
