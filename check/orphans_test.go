package check_test

import (
	"slices"
	"testing"

	"github.com/zksim/zksim/check"
)

// A node left at the end is an orphan when nothing can still remove it:
// persistent once its client's program ended; ephemeral once its client
// returned with the node's session open. Each is worded from its facts
// and blames its creation and its client's end.
func TestLeftovers_WhoCouldStillRemoveIt(t *testing.T) {
	const p = "/sem/leases/l-0000000003"
	for _, tc := range []struct {
		name   string
		node   check.Leftover
		detail string // "": no orphan
		steps  []int
	}{
		{"persistent, client crashed",
			check.Leftover{Client: 1, Path: p, Session: 5, Created: 31, End: check.Crashed, Ended: 40},
			"c2 created persistent " + p + " at step 31 on session 0x5 and crashed at step 40; nothing removed it", []int{31, 40}},
		{"persistent, client finished, session expired",
			check.Leftover{Client: 1, Path: p, Session: 5, Created: 31, End: check.Finished, Ended: 50, SessionEnd: check.Expired, SessionAt: 44},
			"c2 created persistent " + p + " at step 31 on session 0x5 and finished at step 50 (session expired at step 44); nothing removed it", []int{31, 50}},
		{"persistent, lost reply, session abandoned",
			check.Leftover{Client: 0, Path: p, Session: 5, Created: 31, Lost: true, End: check.Finished, Ended: 50, SessionEnd: check.Abandoned, SessionAt: 35},
			"c1 created persistent " + p + " at step 31 (its reply lost) on session 0x5 and finished at step 50 (session abandoned at step 35); nothing removed it", []int{31, 50}},
		{"persistent, crash step unknown",
			check.Leftover{Client: 1, Path: p, Session: 5, Created: 31, End: check.Crashed},
			"c2 created persistent " + p + " at step 31 on session 0x5 and crashed; nothing removed it", []int{31}},
		{"container that never had a child",
			check.Leftover{Client: 1, Path: "/sem/leases", Container: true, Session: 5, Created: 30, End: check.Crashed, Ended: 33},
			"c2 created container /sem/leases at step 30 on session 0x5 and crashed at step 33; nothing removed it, and the reaper keeps a container that never had a child", []int{30, 33}},
		{"persistent, client still running",
			check.Leftover{Client: 1, Path: p, Session: 5, Created: 31}, "", nil},
		{"ephemeral, client finished, session open",
			check.Leftover{Client: 1, Path: p, Ephemeral: true, Session: 5, Created: 31, End: check.Finished, Ended: 50},
			"c2 created ephemeral " + p + " at step 31 on session 0x5 and finished at step 50 with that session open; nothing will remove it", []int{31, 50}},
		{"ephemeral, client crashed: its session expires",
			check.Leftover{Client: 1, Path: p, Ephemeral: true, Session: 5, Created: 31, End: check.Crashed, Ended: 40}, "", nil},
		{"ephemeral, session abandoned: it expires",
			check.Leftover{Client: 1, Path: p, Ephemeral: true, Session: 5, Created: 31, End: check.Finished, Ended: 50, SessionEnd: check.Abandoned}, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := check.Leftovers([]check.Leftover{tc.node})
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
	vs := check.Leftovers([]check.Leftover{
		{Client: 0, Path: "/b", Created: 9, End: check.Finished},
		{Client: 1, Path: "/a", Created: 3, End: check.Crashed},
	})
	if len(vs) != 2 || vs[0].Steps[0] != 3 || vs[1].Steps[0] != 9 {
		t.Fatalf("%v", vs)
	}
}
