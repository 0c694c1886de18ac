package harness

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/sim"
)

// expiry is when session ended, -1 if it has not (yet).
func (run *barrierRun) expiry(session int64) int64 {
	if at, ok := run.expired[session]; ok {
		return at
	}
	return -1
}

// history is the visits as the checkers see them, with Left and Gone
// worked out from the sessions' ends known so far. Unknown ends count as
// late as they can: a node may outlive its member's failure until its
// session expires, and a member counts as still inside until it is known
// to be out.
func (run *barrierRun) history() []checkers.Visit {
	out := make([]checkers.Visit, len(run.visits))
	for i, v := range run.visits {
		cv := v.Visit
		// Its node is on one of the sessions the call ran on (a session
		// given up during the call may have it): as far as the others
		// may know, it left when the first of them ended, and it is gone
		// once all have.
		first, last := int64(-1), int64(0)
		for _, s := range run.holders(v) {
			first, last = checkers.EarliestStep(first, run.expiry(s)), latest(last, run.expiry(s))
		}
		switch {
		case v.Entered >= 0:
			cv.Left, cv.Gone = checkers.EarliestStep(v.leaveCall, first), checkers.EarliestStep(v.leaveCall, last)
		case v.failed >= 0:
			cv.Left = checkers.EarliestStep(v.failed, first)
			// Its node went with the failure, unless it is on a session
			// the client had given up: then it lingers until that ends.
			cv.Gone = v.failed
			for _, s := range run.holders(v) {
				if s != v.after {
					cv.Gone = latest(cv.Gone, run.expiry(s))
				}
			}
		default: // still in Enter, or crashed in it
			cv.Gone = last
		}
		out[i] = cv
	}
	return out
}

// holders are the sessions that may hold a visit's node: those its
// requests ran on, less any that had ended before it arrived (a client
// learns of an expiry late, and then moves to a new session).
func (run *barrierRun) holders(v visit) []int64 {
	ss := slices.Clone(v.sessions)
	if !v.open {
		ss = append(ss, v.after)
	}
	ss = slices.DeleteFunc(ss, func(s int64) bool { at := run.expiry(s); return at >= 0 && at < v.Arrive })
	slices.Sort(ss)
	return slices.Compact(ss)
}

// latest is the later of two steps, -1 (never) counting as latest.
func latest(a, b int64) int64 {
	if a < 0 || b < 0 {
		return -1
	}
	return max(a, b)
}

// safety runs the safety checkers on the history so far.
func (run *barrierRun) safety() []check.Violation {
	if run.w.Single {
		return checkers.BarrierWaits(run.waits, run.removed)
	}
	h := run.history()
	vs := checkers.BarrierEnters(h, run.w.Clients)
	return append(vs, checkers.BarrierLeaves(h)...)
}

// Invariant implements Judge: entry, exit and the single barrier's
// safety, checked whenever a call or a session's end changed what they
// see.
func (run *barrierRun) Invariant(s *sim.Sim) *check.Violation {
	if run.visible == run.judged {
		return nil
	}
	run.judged = run.visible
	if vs := run.safety(); len(vs) > 0 {
		return &vs[0]
	}
	return nil
}

// Visible implements Judge: calls, returns and sessions' ends.
func (run *barrierRun) Visible() int { return run.visible }

// Report implements Judge: it checks a run that ended with every
// checker.
func (run *barrierRun) Report(res *sim.Result) *Report {
	r := &Report{Result: res, expiries: run.ended}
	r.Violations = run.safety()
	herd, counts := checkers.Wakeups(run.wakeups(), run.herdLimit())
	r.Herd = counts
	r.Violations = append(r.Violations, herd...)
	if !res.Deadlock && !res.Bounded {
		r.Violations = append(r.Violations, run.orphans(res)...)
	}
	for _, v := range res.Verdicts() {
		if v.Class == check.Deadlock && run.excused(res) {
			continue
		}
		r.Violations = append(r.Violations, v)
	}
	run.explain(r)
	return r
}

// explain adds to the barrier checkers' causes the faults that hit the
// clients they name (a traced run only), and words a client error or
// no progress by the clients' last steps.
func (run *barrierRun) explain(r *Report) {
	trace := r.Result.Trace
	for i := range r.Violations {
		v := &r.Violations[i]
		switch v.Class {
		case check.BarrierEnter:
			run.explainEnter(v)
			explainFaults(v, trace)
		case check.BarrierLeave, check.BarrierWait:
			explainFaults(v, trace)
		case check.NoProgress, check.ClientError:
			explainRunEnd(v, trace)
		case check.Deadlock:
			explainWaits(v, r.Result.Waits)
		}
	}
}

// explainEnter names the wake-up after which the member passed Enter
// too early, if one came during its call.
func (run *barrierRun) explainEnter(v *check.Violation) {
	if len(v.Chain) < 2 {
		return
	}
	call, end := v.Chain[0], v.Chain[len(v.Chain)-1]
	m := detailClient.FindStringSubmatch(end.What)
	if m == nil {
		return
	}
	client := atoi(m[1]) - 1
	var last *barrierMark
	for i, mk := range run.timeline {
		if mk.kind == markWoken && mk.client == client && mk.step >= call.Step && mk.step <= end.Step {
			last = &run.timeline[i]
		}
	}
	if last == nil {
		return
	}
	v.Cause += fmt.Sprintf("; c%d was last woken at step %d, by the change of zxid %d, and passed after it",
		last.client+1, last.step, last.cause)
	v.Chain = checkers.SortChain(append(v.Chain, check.Link{Step: last.step, What: fmt.Sprintf("c%d woken", last.client+1)}))
}

// excused says whether a deadlock is one the barrier cannot help: every
// client still waiting waits in Enter, fewer of them than the barrier's
// size (the others crashed or dropped out), or on a single barrier whose
// controller never removed it.
func (run *barrierRun) excused(res *sim.Result) bool {
	stuck := 0
	for _, name := range res.Waiting {
		i := slices.IndexFunc(run.s.Clients(), func(c *sim.Client) bool { return c.Name() == name })
		switch {
		case i < 0:
			return false
		case run.phase[i] == entering:
			stuck++
		case run.phase[i] == waiting && !run.lowered:
		default:
			return false
		}
	}
	return stuck < run.w.Clients
}

// wakeups lists the watch notifications clients received about the
// barrier's nodes.
func (run *barrierRun) wakeups() []checkers.Wakeup {
	dir := run.w.Dir
	var out []checkers.Wakeup
	for _, m := range run.timeline {
		if m.kind == markWoken && (m.path == dir || strings.HasPrefix(m.path, dir+"/")) {
			out = append(out, checkers.Wakeup{Client: m.client, Cause: m.cause, Path: m.path, Step: m.step})
		}
	}
	return out
}

// herdLimit: one change may wake the clients that go on (return from
// Enter, Leave or Wait, or stop) before they wait again, plus one that
// waits again. A barrier needs the first: the change that completes a
// round must tell all its waiting members, and the last exit all those
// waiting to leave; a herd is clients woken who cannot proceed. A
// session's end may wake every client waiting on its nodes: each must
// look again at who is left.
func (run *barrierRun) herdLimit() func(int64) int {
	proceeded := map[int64]int{} // cause -> woken clients that went on
	last := map[int]int64{}      // client -> cause of its wakeup since it last waited
	for _, m := range run.timeline {
		switch m.kind {
		case markWoken:
			last[m.client] = m.cause
		case markReturned:
			if cause, ok := last[m.client]; ok {
				proceeded[cause]++
			}
			delete(last, m.client)
		case markBlocks:
			delete(last, m.client)
		}
	}
	for _, cause := range last { // woken, then never waited again: crashed or done
		proceeded[cause]++
	}
	return func(cause int64) int {
		if run.expiries[cause] {
			return run.w.Clients
		}
		return 1 + proceeded[cause]
	}
}

// orphans are the nodes the clients created that nobody will remove
// (checkers.Leftovers), but for those the recipe keeps: the barrier's
// directory (or node) and its ancestors, and what its Keeps says.
func (run *barrierRun) orphans(res *sim.Result) []check.Violation {
	kept := keeper([]string{run.w.Dir}, run.w.Dir, run.w.Recipe.Keeps)
	return checkers.Leftovers(run.made.leftovers(run.s, res, kept, func(session int64) (int, bool) {
		at, ok := run.expired[session]
		return int(at), ok
	}))
}
