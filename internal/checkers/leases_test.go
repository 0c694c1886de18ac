package checkers_test

import (
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/linearize"
)

func TestExclusion_AtMostNLeases(t *testing.T) {
	two := []linearize.Hold{
		{Client: 0, Lock: "/s", Start: 1, End: 5},
		{Client: 1, Lock: "/s", Start: 2, End: 6},
		{Client: 2, Lock: "/s", Start: 5, End: 7}, // takes c1's lease as it ends
		{Client: 3, Lock: "/s", Mode: linearize.Read, Start: 2, End: 3},
		{Client: 4, Lock: "/other", Start: 2, End: 6},
	}
	if vs := checkers.Exclusion(two, 2); len(vs) != 0 {
		t.Fatalf("two leases at once reported: %v", vs)
	}
	if vs := checkers.Exclusion(two, 1); len(vs) == 0 || vs[0].Class != check.RWExclusion {
		t.Fatalf("with one lease: %v, want a lock's verdict", vs)
	}
	// A hold of zero length inside two others is a third lease at once.
	three := append(two, linearize.Hold{Client: 5, Lock: "/s", Start: 3, End: 3})
	vs := checkers.Exclusion(three, 2)
	if len(vs) == 0 || vs[0].Class != check.MaxLeases || !strings.Contains(vs[0].Detail, "c1 (1-5), c2 (2-6), c6 (3-3)") {
		t.Fatalf("three at once not reported: %v", vs)
	}
	if got := vs[0].Steps; len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Fatalf("blamed steps %v, want the three starts", got)
	}
}

func TestLapsed_WriteAfterLeaseLost(t *testing.T) {
	ok := []checkers.Accepted{{Client: 0, Token: 9, Zxid: 20, Lost: 30}, {Client: 1, Token: 5, Zxid: 21}}
	if vs := checkers.Lapsed(ok); len(vs) != 0 {
		t.Fatalf("%v", vs)
	}
	if vs := checkers.Tokens(ok); len(vs) != 1 {
		t.Fatal("Tokens no longer refuses a smaller token: the test shows nothing")
	}
	late := append(ok, checkers.Accepted{Client: 2, Token: 7, Step: 40, Zxid: 31, Lost: 25})
	vs := checkers.Lapsed(late)
	if len(vs) != 1 || vs[0].Class != check.Fencing || !strings.Contains(vs[0].Detail, "c3 wrote with token 7") {
		t.Fatalf("a write after its lease was lost: %v", vs)
	}
}
