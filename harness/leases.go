package harness

import (
	"fmt"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/sim"
)

// leaseInvariant is Invariant for a semaphore's recipe (Recipe.Leases
// above 1): no more holds open now that are not reads than its leases.
func (run *lockRun) leaseInvariant(s *sim.Sim) *check.Violation {
	h, n := run.h, run.w.Recipe.Leases
	var who []int
	for i, hd := range h.Holds {
		if hd.End >= 0 || hd.Mode == check.Read {
			continue
		}
		if at, ok := run.expired[h.sessions[i]]; ok && at >= hd.Start {
			continue
		}
		who = append(who, hd.Client+1)
	}
	if len(who) <= n {
		return nil
	}
	return &check.Violation{Class: check.MaxLeases, Steps: check.Blame(s.Step()),
		Detail: fmt.Sprintf("clients %v hold %s at once at step %d, more than its %d leases", who, run.w.Dir, s.Step(), n)}
}

// fencing checks the writes the resource accepted. A lock's tokens must
// increase (check.Tokens); a semaphore's holders hold at once, so its
// writes are judged by whether the writer's lease was lost before the
// write (check.Lapsed): its session's expiry, if that came first.
func (run *lockRun) fencing() []check.Violation {
	h := run.h
	if run.w.Recipe.Leases <= 1 {
		return check.Tokens(h.Accepted)
	}
	for i := range h.Accepted {
		h.Accepted[i].Lost = run.lostAt[h.sessions[h.writers[i]]]
	}
	return check.Lapsed(h.Accepted)
}

// leaseHerdLimit is herdLimit for a semaphore: one client per change, or
// more if more of those it woke went on without waiting again. A change
// frees at most one lease, but a waiter granted by an earlier one may
// learn of it only now: the member ahead that should have passed the word
// on (marking its node, package semaphore) lost its session first, and
// that session's expiry then wakes both it and the waiter the freed lease
// goes to. What stays a herd is waking clients that must wait again. As
// for a read/write lock's readers, a woken client that gave up or crashed
// before waiting again is not counted against the change. And a waiter
// that gave up (or whose session ended) wakes two that wait again: its
// successor, which re-hooks, and the first waiter, whose child watch on
// the directory fires on any change there.
func (run *lockRun) leaseHerdLimit() func(int64) int {
	proceeded := map[int64]int{} // cause -> woken clients that did not wait again
	last := map[int]int64{}      // client -> cause of its wakeup since it last waited
	for _, r := range run.received {
		switch r.held {
		case heldNone:
			last[r.client] = r.zxid
		case waitsAgain:
			delete(last, r.client)
		default: // holds, or gave up
			if cause, ok := last[r.client]; ok {
				proceeded[cause]++
			}
			delete(last, r.client)
		}
	}
	for _, cause := range last { // woken, then never went on: crashed
		proceeded[cause]++
	}
	return func(cause int64) int {
		if run.giveUps[cause] {
			return max(2, proceeded[cause])
		}
		return max(1, proceeded[cause])
	}
}
