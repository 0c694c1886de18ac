package simcli

import (
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/history"
	"github.com/zksim/zksim/zkapi"
)

// A node c1 deleted, with success, and found again on its own session:
// the servers lost the delete. The run reports lost-write, the node is
// no orphan of the recipe, and the deadlock it causes names the lost
// delete as its cause.
func TestLostWrites_Judged(t *testing.T) {
	node := "/l/x-0000000000"
	del := history.Entry{At: 1 * sec, Client: 0, Kind: history.Return, Op: "delete", Path: node, Session: zkapi.Session{ID: 7}}
	seen := history.Entry{At: 2 * sec, Client: 0, Kind: history.Return, Op: "getw", Path: node, Result: "exists", Session: zkapi.Session{ID: 7}}
	es := []history.Entry{
		mark(0.5, 0, history.Acquire), mark(0.6, 0, history.Held), mark(0.7, 0, history.Release), del, mark(1.1, 0, history.Released),
		mark(1.2, 0, history.Acquire), seen, waitOn(2.1, 0, node),
		mark(1.3, 1, history.Acquire), waitOn(1.4, 1, node),
	}
	lw := judgeLost(es, "/l", []string{"x-0000000000"}, 10*sec)
	if len(lw.vs) != 1 || lw.vs[0].Class != check.LostWrite || !strings.Contains(lw.vs[0].Detail, "c1's own read at +2.000s") {
		t.Fatalf("violations %v, want one lost-write seen by c1's own read", lw.vs)
	}
	if left := lw.notIn("/l", []string{"x-0000000000", "x-0000000001"}); len(left) != 1 || left[0] != "x-0000000001" {
		t.Errorf("notIn = %v, want only x-0000000001 (x-0000000000's delete was lost)", left)
	}
	in := liveInput{dir: "/l", left: []string{"x-0000000000"}, end: 10 * sec, entries: es, lost: lw}
	vs := noProgress(in, testBounds)
	if len(vs) != 1 || vs[0].Class != check.Deadlock || !strings.Contains(vs[0].Cause, "the ensemble lost that delete (lost-write)") {
		t.Fatalf("got %v, want a deadlock whose cause is the lost delete", vs)
	}
}
