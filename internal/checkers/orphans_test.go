package checkers_test

import (
	"slices"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/checkers"
)

// A node left at the end is an orphan when nothing can still remove it:
// persistent once its client's program ended; ephemeral once its client
// returned with the node's session open. Each is worded from its facts
// and blames its creation and its client's end.
func TestLeftovers_WhoCouldStillRemoveIt(t *testing.T) {
	const p = "/sem/leases/l-0000000003"
	for _, tc := range []struct {
		name   string
		node   checkers.Leftover
		detail string // "": no orphan
		steps  []int
	}{
		{"persistent, client crashed",
			checkers.Leftover{Client: 1, Path: p, Session: 5, Created: 31, End: checkers.Crashed, Ended: 40},
			"c2 created persistent " + p + " at step 31 on session 0x5 and crashed at step 40; nothing removed it", []int{31, 40}},
		{"persistent, client finished, session expired",
			checkers.Leftover{Client: 1, Path: p, Session: 5, Created: 31, End: checkers.Finished, Ended: 50, SessionEnd: checkers.Expired, SessionAt: 44},
			"c2 created persistent " + p + " at step 31 on session 0x5 and finished at step 50 (session expired at step 44); nothing removed it", []int{31, 50}},
		{"persistent, lost reply, session abandoned",
			checkers.Leftover{Client: 0, Path: p, Session: 5, Created: 31, Lost: true, End: checkers.Finished, Ended: 50, SessionEnd: checkers.Abandoned, SessionAt: 35},
			"c1 created persistent " + p + " at step 31 (its reply lost) on session 0x5 and finished at step 50 (session abandoned at step 35); nothing removed it", []int{31, 50}},
		{"persistent, crash step unknown",
			checkers.Leftover{Client: 1, Path: p, Session: 5, Created: 31, End: checkers.Crashed},
			"c2 created persistent " + p + " at step 31 on session 0x5 and crashed; nothing removed it", []int{31}},
		{"container that never had a child",
			checkers.Leftover{Client: 1, Path: "/sem/leases", Container: true, Session: 5, Created: 30, End: checkers.Crashed, Ended: 33},
			"c2 created container /sem/leases at step 30 on session 0x5 and crashed at step 33; nothing removed it, and the reaper keeps a container that never had a child", []int{30, 33}},
		{"persistent, client still running",
			checkers.Leftover{Client: 1, Path: p, Session: 5, Created: 31}, "", nil},
		{"ephemeral, client finished, session open",
			checkers.Leftover{Client: 1, Path: p, Ephemeral: true, Session: 5, Created: 31, End: checkers.Finished, Ended: 50},
			"c2 created ephemeral " + p + " at step 31 on session 0x5 and finished at step 50 with that session open; nothing will remove it", []int{31, 50}},
		{"ephemeral, client crashed: its session expires",
			checkers.Leftover{Client: 1, Path: p, Ephemeral: true, Session: 5, Created: 31, End: checkers.Crashed, Ended: 40}, "", nil},
		{"ephemeral, session abandoned: it expires",
			checkers.Leftover{Client: 1, Path: p, Ephemeral: true, Session: 5, Created: 31, End: checkers.Finished, Ended: 50, SessionEnd: checkers.Abandoned}, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := checkers.Leftovers([]checkers.Leftover{tc.node})
			switch {
			case tc.detail == "" && len(vs) > 0:
				t.Fatalf("false orphan: %v", vs)
			case tc.detail == "":
			case len(vs) != 1 || vs[0].Class != check.Orphan:
				t.Fatalf("want one orphan, got %v", vs)
			case vs[0].Detail != tc.detail || !slices.Equal(vs[0].Steps, tc.steps):
				t.Errorf("got %q blaming %v\nwant %q blaming %v", vs[0].Detail, vs[0].Steps, tc.detail, tc.steps)
			}
		})
	}
}

// Orphans are reported in the order they were created, whatever the
// order given.
func TestLeftovers_InCreationOrder(t *testing.T) {
	vs := checkers.Leftovers([]checkers.Leftover{
		{Client: 0, Path: "/b", Created: 9, End: checkers.Finished},
		{Client: 1, Path: "/a", Created: 3, End: checkers.Crashed},
	})
	if len(vs) != 2 || vs[0].Steps[0] != 3 || vs[1].Steps[0] != 9 {
		t.Fatalf("%v", vs)
	}
}
