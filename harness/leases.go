package harness

import (
	"fmt"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/linearize"
	"github.com/zksim/zksim/sim"
)

// leaseInvariant is Invariant for a semaphore's recipe (Recipe.Leases
// above 1): no more holds open now that are not reads than its leases.
func (run *lockRun) leaseInvariant(s *sim.Sim) *check.Violation {
	n := run.w.Recipe.Leases
	var who []int
	for hd := range run.openHolds() {
		if hd.Mode != linearize.Read {
			who = append(who, hd.Client+1)
		}
	}
	if len(who) <= n {
		return nil
	}
	v := &check.Violation{Class: check.MaxLeases, Steps: checkers.Blame(s.Step()),
		Detail: fmt.Sprintf("clients %v hold %s at once at step %d, more than its %d leases", who, run.w.Dir, s.Step(), n)}
	run.explainOpen(v)
	return v
}

// fencing checks the writes the resource accepted. A lock's tokens must
// increase (checkers.Tokens); a semaphore's holders hold at once, so its
// writes are judged by whether the writer's lease was lost before the
// write (checkers.Lapsed): its session's expiry, if that came first.
func (run *lockRun) fencing() []check.Violation {
	h := run.h
	if run.w.Recipe.Leases <= 1 {
		return checkers.Tokens(h.Accepted)
	}
	for i := range h.Accepted {
		h.Accepted[i].Lost = run.expired[h.sessions[h.writers[i]]].zxid
	}
	return checkers.Lapsed(h.Accepted)
}
