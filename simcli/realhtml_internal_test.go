package simcli

import (
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/linearize"
)

// The checkers word a real run's violations on its clocks: holds and
// steps on the logical clock, a herd's wake-ups in nanoseconds. The
// report moves them onto its steps, where the page marks them.
func TestRealTimeline_ViolationsInSteps(t *testing.T) {
	tl := &realTimeline{
		events: []realEvent{{at: 10}, {at: 20}, {at: 30}, {at: 40}, {at: 50}, {at: 60}},
		byHold: map[holdKeyReal]linearize.Hold{
			{0, 7}: {Client: 0, Start: 2, End: 5},
			{1, 9}: {Client: 1, Start: 3, End: -1},
		},
		logical: []clockPair{{6, 1}, {7, 2}, {9, 3}, {12, 5}},
	}
	vs := tl.violations([]check.Violation{
		{Class: check.MutualExclusion, Detail: "c1 (exclusive, 7-12) and c2 (exclusive, 9-end) both held /l", Steps: []int{7, 9}},
		{Class: check.Fencing, Detail: "c2 wrote with token 3 at step 10 after c1 wrote with token 4 at step 8"},
		{Class: check.Herd, Detail: "one change woke 2 clients", Chain: []check.Link{
			{What: "c1 woken by /l at 40 (watch set at 15)"}, {What: "c2 woken by /l at 60 (watch set at 20)"}}},
	})
	for i, want := range []string{
		"c1 (exclusive, 2-5) and c2 (exclusive, 3-end) both held /l",
		"c2 wrote with token 3 at step 3 after c1 wrote with token 4 at step 2",
		"one change woke 2 clients (woken at step 4, step 6)",
	} {
		if vs[i].Detail != want {
			t.Errorf("violation %d: %q, want %q", i, vs[i].Detail, want)
		}
	}
	if c := vs[2].Chain; c[0].Step != 4 || c[1].What != "c2 woken by /l at step 6 (watch set at step 2)" {
		t.Errorf("herd chain %+v", c)
	}
	if vs[0].Steps != nil {
		t.Errorf("steps %v left on the logical clock", vs[0].Steps)
	}
}
