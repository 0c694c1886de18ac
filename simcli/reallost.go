package simcli

import (
	"fmt"
	"slices"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/history"
)

// lostWrites are the deletes the servers acknowledged and then undid
// (history.LostDeletes), as lost-write violations, and by node: an
// undone delete explains an orphan or a deadlock on its node, which are
// then the servers' doing, not the recipe's.
type lostWrites struct {
	vs    []check.Violation
	nodes map[string]history.LostDelete
}

// lostWrites judges the run's history and the nodes left in dir after
// the final sync.
func (r *realRun) lostWrites(dir string, left []string) lostWrites {
	return judgeLost(r.history.rec.Entries(), dir, left, r.history.now())
}

// judgeLost finds the lost deletes of history es, given the names left
// in dir when it ended, at end.
func judgeLost(es []history.Entry, dir string, left []string, end int64) lostWrites {
	final := make([]string, len(left))
	for i, n := range left {
		final[i] = dir + "/" + n
	}
	lw := lostWrites{nodes: map[string]history.LostDelete{}}
	for _, l := range history.LostDeletes(es, final, end) {
		lw.nodes[l.Path] = l
		lw.vs = append(lw.vs, lostViolation(l))
	}
	return lw
}

func lostViolation(l history.LostDelete) check.Violation {
	seen := fmt.Sprintf("c%d's own read at %s, on the same session", l.Client+1, clockWords(l.Seen))
	if l.Final {
		seen = "the listing after a sync, once every client was done"
	}
	return check.Violation{Class: check.LostWrite,
		Detail: fmt.Sprintf("the servers lost c%d's delete of %s: acknowledged at %s, the node was there again in %s",
			l.Client+1, l.Path, clockWords(l.Deleted), seen),
		Cause: fmt.Sprintf("the ensemble undid a delete it had acknowledged to c%d (session %#x) at %s: ZooKeeper promises that an acknowledged write survives, so no recipe causes this; what the recipe shows on that node follows from it (see the member faults before %s)",
			l.Client+1, l.Session, clockWords(l.Deleted), clockWords(l.Seen))}
}

// notIn is left (names under dir) without the nodes whose deletes were
// lost: those are no orphans of the recipe, which deleted them.
func (lw lostWrites) notIn(dir string, left []string) []string {
	return slices.DeleteFunc(slices.Clone(left), func(n string) bool {
		_, lost := lw.nodes[dir+"/"+n]
		return lost
	})
}

// story says, of a node that blocked waiters, that its delete was lost,
// or "".
func (lw lostWrites) story(node string) string {
	l, ok := lw.nodes[node]
	if !ok {
		return ""
	}
	return fmt.Sprintf(", though c%d had deleted it at %s and the servers had acknowledged it: the ensemble lost that delete (lost-write), not the recipe", l.Client+1, clockWords(l.Deleted))
}
