package check

import (
	"cmp"
	"fmt"
	"slices"
)

// Wakeup is a watch notification a client received about a lock node.
type Wakeup struct {
	Client int
	Cause  int64 // zxid of the change that fired it
	Path   string
	Step   int // when it was delivered, for blame; 0 if unknown
}

// Wakeups counts, per change (zxid), the distinct clients woken; more
// than limit(cause) is a herd. For an exclusive lock the limit is 1.
// Wakeups with no single cause (Cause < 0: catching up after a reconnect)
// are not counted.
func Wakeups(wakeups []Wakeup, limit func(cause int64) int) ([]Violation, map[int64]int) {
	woken := wokenBy(wakeups)
	counts := map[int64]int{}
	var vs []Violation
	for len(woken) > 0 {
		c, n := woken[0].cause, 1
		for n < len(woken) && woken[n].cause == c {
			n++
		}
		woken = woken[n:]
		counts[c] = n
		if max := limit(c); n > max {
			vs = append(vs, Violation{Class: Herd, Detail: fmt.Sprintf("one change (zxid %d) woke %d clients, at most %d could proceed", c, n, max),
				Steps: wokenSteps(wakeups, c)})
		}
	}
	return vs, counts
}

// wokenSteps are the steps of the wakeups that cause fired.
func wokenSteps(wakeups []Wakeup, cause int64) []int {
	var steps []int
	for _, w := range wakeups {
		if w.Cause == cause {
			steps = append(steps, w.Step)
		}
	}
	return Blame(steps...)
}

// Blame makes a Violation's Steps: ascending, without repeats or the
// unknown step 0.
func Blame(steps ...int) []int {
	out := slices.DeleteFunc(slices.Clone(steps), func(s int) bool { return s <= 0 })
	slices.Sort(out)
	return slices.Compact(out)
}

// wake is one client woken by one change.
type wake struct {
	cause  int64
	client int
}

// wokenBy lists the distinct (change, client) pairs of wakeups with a
// cause, sorted: one slice rather than a set per change, as the check runs
// once per schedule.
func wokenBy(wakeups []Wakeup) []wake {
	woken := make([]wake, 0, len(wakeups))
	for _, w := range wakeups {
		if w.Cause >= 0 {
			woken = append(woken, wake{w.Cause, w.Client})
		}
	}
	slices.SortFunc(woken, func(a, b wake) int {
		return cmp.Or(cmp.Compare(a.cause, b.cause), cmp.Compare(a.client, b.client))
	})
	return slices.Compact(woken)
}

// Accepted is a write the protected resource accepted.
type Accepted struct {
	Client int
	Token  int64
	Step   int64
	Zxid   int64 // the write's zxid: the resource's order of acceptance
	// Call is when the write was sent (0: unknown): Terms refuses a
	// write from a term older than one begun before it.
	Call int64
	// Lost is the zxid at which the writer's lease was lost (its
	// session's expiry), if it was; 0 if not. Lapsed reads it.
	Lost int64
}

// Tokens requires the accepted tokens to increase strictly in the
// order the resource accepted them (by Zxid): a smaller or equal token came
// from a holder that had lost the lock.
func Tokens(accepted []Accepted) []Violation {
	writes := slices.Clone(accepted)
	slices.SortStableFunc(writes, func(a, b Accepted) int { return cmp.Compare(a.Zxid, b.Zxid) })
	var vs []Violation
	for i := 1; i < len(writes); i++ {
		if a, b := writes[i-1], writes[i]; b.Token <= a.Token {
			vs = append(vs, Violation{Class: Fencing, Detail: fmt.Sprintf(
				"split brain: c%d wrote with token %d at step %d after c%d wrote with token %d at step %d",
				b.Client+1, b.Token, b.Step, a.Client+1, a.Token, a.Step), Steps: Blame(int(a.Step), int(b.Step))})
		}
	}
	return vs
}

// Lapsed is fencing for a semaphore of N > 1 leases, where Tokens does
// not apply: N holders hold at once, each with its own token, so a
// resource may accept a smaller token after a larger one from a holder
// that still holds. What it must refuse is a write from a holder whose
// lease had ended: one accepted after (by zxid) the writer lost its
// lease is a Fencing violation.
func Lapsed(accepted []Accepted) []Violation {
	var vs []Violation
	for _, a := range accepted {
		if a.Lost > 0 && a.Zxid > a.Lost {
			vs = append(vs, Violation{Class: Fencing, Detail: fmt.Sprintf(
				"c%d wrote with token %d at step %d (zxid %d) after its lease was lost at zxid %d",
				a.Client+1, a.Token, a.Step, a.Zxid, a.Lost), Steps: Blame(int(a.Step))})
		}
	}
	return vs
}

// Orphans reports lock nodes that nobody will remove, when all the
// caller knows is their names: those still present at the end of a run
// on real servers, all sessions closed. A simulated run knows who made
// each node and what became of its session and client: Leftovers judges
// those.
func Orphans(lock string, nodes []string) []Violation {
	if len(nodes) == 0 {
		return nil
	}
	return []Violation{{Class: Orphan, Detail: fmt.Sprintf("%s still has %v after all clients finished", lock, nodes)}}
}
