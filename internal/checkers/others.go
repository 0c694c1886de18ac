package checkers

import (
	"cmp"
	"fmt"
	"github.com/zksim/zksim/check"
	"slices"
	"strings"
)

// Wakeup is a watch notification a client received about a lock node.
type Wakeup struct {
	Client int
	Cause  int64 // zxid of the change that fired it
	Path   string
	Step   int // when it was delivered, for blame; 0 if unknown
	// Stale: the client's session was replaced during the wait this
	// wake-up ended (it gave the session up, or learned it had expired,
	// and queued again on a new one), or the change was the end of one
	// of its own old sessions: see StaleWakeup.
	Stale bool
}

// Wakeups counts, per change (zxid), the distinct clients woken; more
// than limit(cause) is a herd. For an exclusive lock the limit is 1.
// Wakeups with no single cause (Cause < 0: catching up after a reconnect)
// are not counted. A change whose wake-ups are over the limit only by
// clients woken stale (Wakeup.Stale) is no herd: it is reported as a
// StaleWakeup note, which is not a violation (Note); a herd's
// count leaves the stale ones out.
func Wakeups(wakeups []Wakeup, limit func(cause int64) int) ([]check.Violation, map[int64]int) {
	woken := wokenBy(wakeups)
	counts := make(map[int64]int, len(woken)) // at most one per wake: no growing
	var vs []check.Violation
	for len(woken) > 0 {
		c, n := woken[0].cause, 1
		for n < len(woken) && woken[n].cause == c {
			n++
		}
		clients := woken[:n]
		woken = woken[n:]
		counts[c] = n
		max := limit(c)
		if n <= max {
			continue
		}
		if v, over := judgeWakes(wakeups, c, clients, max); over {
			vs = append(vs, v)
		}
	}
	return vs, counts
}

// judgeWakes words one change that woke more clients than max: a herd,
// or, when the stale wake-ups alone put it over, a StaleWakeup note.
func judgeWakes(wakeups []Wakeup, cause int64, clients []wake, max int) (check.Violation, bool) {
	var fresh, stale []int
	for _, w := range clients {
		if staleWake(wakeups, cause, w.client) {
			stale = append(stale, w.client)
		} else {
			fresh = append(fresh, w.client)
		}
	}
	chain := wakeChain(wakeups, cause)
	steps := wokenSteps(wakeups, cause)
	if len(fresh) <= max {
		return check.Violation{Class: check.StaleWakeup, Steps: steps, Chain: chain,
			Detail: fmt.Sprintf("one change (zxid %d) woke %d clients, at most %d could proceed, but %s woken stale",
				cause, len(clients), max, clientList(stale)+wasWere(len(stale))),
			Cause: fmt.Sprintf("%s woke for a queue place of a session %s had replaced while waiting: not a herd",
				clientList(stale), theyOrIt(len(stale)))}, true
	}
	cause2 := fmt.Sprintf("one change (zxid %d) woke %s; at most %d could proceed, so %d woke for nothing",
		cause, clientList(fresh), max, len(fresh)-max)
	if len(stale) > 0 {
		cause2 += fmt.Sprintf(" (and %s woke stale, on a replaced session)", clientList(stale))
	}
	return check.Violation{Class: check.Herd, Steps: steps, Chain: chain, Cause: cause2,
		Detail: fmt.Sprintf("one change (zxid %d) woke %d clients, at most %d could proceed", cause, len(fresh), max)}, true
}

// staleWake says whether client's wake-ups by cause were all stale.
func staleWake(wakeups []Wakeup, cause int64, client int) bool {
	seen := false
	for _, w := range wakeups {
		if w.Cause == cause && w.Client == client {
			if !w.Stale {
				return false
			}
			seen = true
		}
	}
	return seen
}

// wakeChain links each wake-up by cause to its step.
func wakeChain(wakeups []Wakeup, cause int64) []check.Link {
	var out []check.Link
	for _, w := range wakeups {
		if w.Cause == cause && w.Step > 0 {
			what := fmt.Sprintf("c%d woken by zxid %d", w.Client+1, cause)
			if w.Stale {
				what += " (stale: its session was replaced)"
			}
			out = append(out, check.Link{Step: w.Step, What: what})
		}
	}
	return SortChain(out)
}

// SortChain orders links by step, keeping the order of links of one
// step, and drops repeats.
func SortChain(links []check.Link) []check.Link {
	out := slices.Clone(links)
	slices.SortStableFunc(out, func(a, b check.Link) int { return cmp.Compare(a.Step, b.Step) })
	return slices.Compact(out)
}

// clientList words clients (0-based) as "c1, c3 and c4".
func clientList(clients []int) string {
	names := make([]string, len(clients))
	for i, c := range clients {
		names[i] = fmt.Sprintf("c%d", c+1)
	}
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func wasWere(n int) string {
	if n == 1 {
		return " was"
	}
	return " were"
}

func theyOrIt(n int) string {
	if n == 1 {
		return "it"
	}
	return "they"
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
func Tokens(accepted []Accepted) []check.Violation {
	writes := slices.Clone(accepted)
	slices.SortStableFunc(writes, func(a, b Accepted) int { return cmp.Compare(a.Zxid, b.Zxid) })
	var vs []check.Violation
	for i := 1; i < len(writes); i++ {
		if a, b := writes[i-1], writes[i]; b.Token <= a.Token {
			vs = append(vs, check.Violation{Class: check.Fencing, Detail: fmt.Sprintf(
				"split brain: c%d wrote with token %d at step %d after c%d wrote with token %d at step %d",
				b.Client+1, b.Token, b.Step, a.Client+1, a.Token, a.Step), Steps: Blame(int(a.Step), int(b.Step)),
				Cause: fmt.Sprintf("the resource took c%d's token %d at step %d though c%d's %d came before it at step %d: the write was not fenced",
					b.Client+1, b.Token, b.Step, a.Client+1, a.Token, a.Step),
				Chain: SortChain([]check.Link{{Step: int(a.Step), What: fmt.Sprintf("c%d wrote with token %d", a.Client+1, a.Token)},
					{Step: int(b.Step), What: fmt.Sprintf("c%d wrote with the older token %d", b.Client+1, b.Token)}})})
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
func Lapsed(accepted []Accepted) []check.Violation {
	var vs []check.Violation
	for _, a := range accepted {
		if a.Lost > 0 && a.Zxid > a.Lost {
			vs = append(vs, check.Violation{Class: check.Fencing, Detail: fmt.Sprintf(
				"c%d wrote with token %d at step %d (zxid %d) after its lease was lost at zxid %d",
				a.Client+1, a.Token, a.Step, a.Zxid, a.Lost), Steps: Blame(int(a.Step)),
				Cause: fmt.Sprintf("c%d's lease went with its session (zxid %d), and the resource still took its write at step %d",
					a.Client+1, a.Lost, a.Step),
				Chain: []check.Link{{Step: int(a.Step), What: fmt.Sprintf("c%d wrote after losing its lease", a.Client+1)}}})
		}
	}
	return vs
}

// Orphans reports lock nodes that nobody will remove, when all the
// caller knows is their names: those still present at the end of a run
// on real servers, all sessions closed. A simulated run knows who made
// each node and what became of its session and client: Leftovers judges
// those.
func Orphans(lock string, nodes []string) []check.Violation {
	if len(nodes) == 0 {
		return nil
	}
	return []check.Violation{{Class: check.Orphan, Detail: fmt.Sprintf("%s still has %v after all clients finished", lock, nodes)}}
}
