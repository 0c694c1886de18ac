package checkers

import (
	"slices"

	"github.com/zksim/zksim/check"
)

// Note reports whether class is a note rather than a violation: it
// describes the run and never fails a check (check.Undecided,
// check.StaleWakeup).
func Note(class check.Class) bool { return class == check.Undecided || class == check.StaleWakeup }

// severities orders the classes, worst first.
var severities = []check.Class{check.LostWrite, check.MutualExclusion, check.RWExclusion, check.MaxLeases, check.SharedTerm, check.TermOrder,
	check.BarrierEnter, check.BarrierLeave, check.BarrierWait, check.Fencing, check.Deadlock, check.NoProgress, check.Orphan,
	check.ClientError, check.Invariant, check.Linearizability, check.Herd, check.Undecided, check.StaleWakeup}

// Severity ranks a violation class, 0 the worst: a run is reported by the
// worst class it shows. Unknown classes rank last.
func Severity(class check.Class) int {
	if i := slices.Index(severities, class); i >= 0 {
		return i
	}
	return len(severities)
}

// Worst is the most severe of classes (which must not be empty); the
// first of those that rank alike.
func Worst(classes []check.Class) check.Class {
	return slices.MinFunc(classes, func(a, b check.Class) int { return Severity(a) - Severity(b) })
}
