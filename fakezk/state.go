package fakezk

import (
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/zkapi"
)

// State is a fake server's state as a test or an invariant reads it:
// the nodes of the tree and the sessions alive. The simulator hands the
// same view to a Subject's judge (sim.Sim.State).
type State interface {
	// Node returns the data and Stat of the node at path, and whether
	// it exists.
	Node(path string) (data []byte, st zkapi.Stat, ok bool)
	// Children returns the names of path's children, sorted; nil if
	// path does not exist.
	Children(path string) []string
	// Alive reports whether the session with this id is open.
	Alive(session int64) bool
}

// The State a Server hands Inspect, WaitUntil and an Interceptor is its
// Machine itself: internal/fakehook asserts it back for the module's tests.
var _ State = (*machine.Machine)(nil)
