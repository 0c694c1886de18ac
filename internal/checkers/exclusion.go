package checkers

import (
	"fmt"
	"github.com/zksim/zksim/check"
	"slices"
	"strings"

	"github.com/zksim/zksim/linearize"
)

// Exclusion words what linearize.Locks finds in holds, a history of locks
// of n leases each: nothing if it is linearizable; else for n <= 1 one
// MutualExclusion violation (RWExclusion if the history has a hold that is
// not Exclusive) naming the two holds that overlap, and for n > 1 one
// MaxLeases violation naming the n+1 held at once. Its Cause is the plain
// one (who acquired while whom held), which a harness that knows the
// sessions and nodes words further.
func Exclusion(holds []linearize.Hold, n int) []check.Violation {
	over := linearize.Locks(holds, n)
	switch {
	case over == nil:
		return nil
	case n > 1:
		return []check.Violation{maxLeases(over, n)}
	}
	return []check.Violation{overlap(holds, over[0], over[1])}
}

// overlap is the violation of a and b, both held at once on a lock that
// admits one holder (or readers only).
func overlap(holds []linearize.Hold, a, b linearize.Hold) check.Violation {
	class := check.MutualExclusion
	if slices.ContainsFunc(holds, func(h linearize.Hold) bool { return h.Mode != linearize.Exclusive }) {
		class = check.RWExclusion
	}
	detail := fmt.Sprintf("c%d (%s, %d-%s) and c%d (%s, %d-%s) both held %s",
		a.Client+1, a.Mode, a.Start, endString(a), b.Client+1, b.Mode, b.Start, endString(b), a.Lock)
	return check.Violation{Class: class, Detail: detail, Steps: Blame(int(a.Start), int(b.Start)),
		Cause: overlapCause(b, []linearize.Hold{a}), Chain: SortChain([]check.Link{acquired(a), acquired(b)})}
}

// maxLeases is the violation of over, more holds at once than a
// semaphore's n leases.
func maxLeases(over []linearize.Hold, n int) check.Violation {
	var who []string
	var starts []int
	var chain []check.Link
	for _, h := range over {
		who = append(who, fmt.Sprintf("c%d (%d-%s)", h.Client+1, h.Start, endString(h)))
		starts = append(starts, int(h.Start))
		chain = append(chain, acquired(h))
	}
	detail := fmt.Sprintf("%s held %s at once, more than its %d leases", strings.Join(who, ", "), over[0].Lock, n)
	last := over[len(over)-1]
	return check.Violation{Class: check.MaxLeases, Detail: detail, Steps: Blame(starts...), Chain: SortChain(chain),
		Cause: overlapCause(last, over[:len(over)-1])}
}

// overlapCause is the plain cause of an overlap, when nothing is known of
// sessions or nodes: b acquired while the others held. "c2 acquired
// /locks/l at step 40 while c1 held it (from step 30 to step 45)".
func overlapCause(b linearize.Hold, others []linearize.Hold) string {
	var held []string
	for _, a := range others {
		to := fmt.Sprintf("to step %d", a.End)
		if a.End < 0 {
			to = "to the end"
		}
		held = append(held, fmt.Sprintf("c%d held it (from step %d %s)", a.Client+1, a.Start, to))
	}
	return fmt.Sprintf("c%d acquired %s at step %d while %s", b.Client+1, b.Lock, b.Start, strings.Join(held, ", "))
}

// acquired is the link of a hold's start.
func acquired(h linearize.Hold) check.Link {
	return check.Link{Step: int(h.Start), What: fmt.Sprintf("c%d acquired %s (%s)", h.Client+1, h.Lock, h.Mode)}
}

func endString(h linearize.Hold) string {
	if h.End < 0 {
		return "end"
	}
	return fmt.Sprint(h.End)
}

// Register words linearize.Register's verdict on a znode's gets and sets
// (ZooKeeper promises linearizability for writes and for reads after
// sync): a Linearizability violation if they have no linearization, and
// an Undecided note, never a violation, if the step-bounded search met
// its bound before it could tell.
func Register(ops []linearize.RegisterOp) []check.Violation {
	switch linearizable, decided := linearize.Register(ops); {
	case !decided:
		return []check.Violation{{Class: check.Undecided, Detail: fmt.Sprintf(
			"%d register operations: no linearization found within %d search steps, and none ruled out", len(ops), linearize.RegisterSteps)}}
	case !linearizable:
		return []check.Violation{{Class: check.Linearizability, Detail: fmt.Sprintf("%d register operations have no linearization", len(ops))}}
	}
	return nil
}
