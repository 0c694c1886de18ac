package checkers

import (
	"fmt"
	pathpkg "path"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/linearize"
)

// QueueHerd is the herd check of a history that does not say which
// change woke whom (a real server's: its notifications carry no zxid):
// linearize.Herd's search for an assignment of wake-ups to the changes
// that could have fired them, no change waking two clients that count.
// It words a herd as Wakeups does, without the zxid, naming the clients
// and the times of the wake-ups that no assignment fits; a history the
// step-bounded search could not decide is an Undecided note.
func QueueHerd(ops []linearize.QueueOp) []check.Violation {
	herd, decided := linearize.Herd(ops)
	if !decided {
		return []check.Violation{{Class: check.Undecided, Detail: fmt.Sprintf(
			"%d lock queue operations: no herd-free assignment of wake-ups found within linearize.Herd's step bound, and none ruled out",
			len(ops))}}
	}
	if herd == nil {
		return nil
	}
	if len(herd) < 2 {
		// No other wake-up competes with it: no recorded change could
		// have fired its watch, so the history misses one.
		w := herd[0]
		return []check.Violation{{Class: check.Undecided, Detail: fmt.Sprintf(
			"c%d woken by %s at %d, and no recorded change could have fired its watch: the history misses a change",
			w.Client+1, w.Node, w.Return)}}
	}
	clients := make([]int, len(herd))
	var chain []check.Link
	for i, w := range herd {
		clients[i] = w.Client
		chain = append(chain, check.Link{What: fmt.Sprintf("c%d woken by %s at %d (watch set at %d)", w.Client+1, w.Node, w.Return, w.Call)})
	}
	dir := herd[0].Node
	if !herd[0].Child {
		dir = pathpkg.Dir(dir)
	}
	return []check.Violation{{Class: check.Herd, Chain: chain,
		Detail: fmt.Sprintf("one change woke %d clients, at most 1 could proceed, in %s", len(herd), dir),
		Cause: fmt.Sprintf("no change in %s could have woken %s apart: one woke them, at most 1 could proceed, so %d woke for nothing",
			dir, clientList(clients), len(herd)-1)}}
}
