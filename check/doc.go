// Package check is the vocabulary of zksim's verdicts: a Violation of
// a Class, the symptom a checker saw (Detail), the mechanism behind it
// (Cause, and Chain: the steps that led to it, as Links) and the
// simulator steps it blames. A harness.Report lists the Violations of a
// run; traces, reports and `zksim ci` output print their classes, whose
// strings never change.
//
// The classes: MutualExclusion, RWExclusion and MaxLeases (more holders
// at once than a lock of N leases allows), Linearizability (of a znode
// used as a register), Herd (one change woke more waiters than could
// proceed), Fencing (a protected resource accepted a write out of
// order), Orphan (a node nothing will remove), SharedTerm and TermOrder
// (an election's terms), BarrierEnter, BarrierLeave and BarrierWait (a
// barrier passed too early), and the simulator's Deadlock, NoProgress,
// ClientError and Invariant. Undecided and StaleWakeup are notes, not
// violations: they describe a run and fail nothing.
//
// The checkers that find them are the module's own (internal/checkers):
// the harness runs them on what it observed of a run.
package check

import (
	"fmt"
)

// Class names a kind of violation. Its string is what traces, reports and
// `zksim ci` output print, so the values below never change.
type Class string

// Violation classes.
const (
	MutualExclusion Class = "mutual-exclusion"
	Linearizability Class = "linearizability" // of a register history
	RWExclusion     Class = "reader-writer-exclusion"
	// MaxLeases: more holders at once than a semaphore's N leases
	// (recipe.Lock.Leases, for N > 1; a mutex's is MutualExclusion).
	MaxLeases   Class = "max-leases"
	Herd        Class = "herd"
	Fencing     Class = "fencing"
	Orphan      Class = "orphan"
	Deadlock    Class = "deadlock"
	NoProgress  Class = "no-progress"
	ClientError Class = "client-error"
	Invariant   Class = "invariant"
	// SharedTerm: two leaderships of an election had one term.
	SharedTerm Class = "shared-term"
	// TermOrder: a leadership began with a term below one that began
	// before it.
	TermOrder Class = "term-order"
	// LostWrite: the servers lost a write they had acknowledged: a node
	// whose delete a client was told had succeeded was there again
	// where ZooKeeper's guarantees rule it out (on real servers; the
	// simulated server never loses one). It judges the ensemble, not
	// the recipe, and is the cause of what the recipe shows after it.
	LostWrite Class = "lost-write"
	// Undecided is not a violation: linearize's search met its bound
	// before it could tell, and says so rather than guess.
	Undecided Class = "undecided"
	// StaleWakeup is not a violation but a note: one change woke,
	// beside the waiters that could proceed, a client whose session had
	// been replaced during its wait (it gave the session up or learned
	// it had expired, and went on waiting on a new one) and whose node
	// had gone with it: it waits for a queue place it no longer has.
	// ZooKeeper does this to a recipe that waits on across a replaced
	// session: the watch set on the new session fires as it must. One
	// wake-up per replaced session costs one read and grows with the
	// faults, not with the waiters, so it fails no recipe.
	StaleWakeup Class = "stale-wakeup"
)

// Violation classes of the barriers (package barrier).
const (
	// BarrierEnter: a member passed a double barrier's Enter before n
	// members had arrived.
	BarrierEnter Class = "barrier-enter"
	// BarrierLeave: a member passed a double barrier's Leave before every
	// member of its round had left.
	BarrierLeave Class = "barrier-leave"
	// BarrierWait: a waiter passed a single barrier that had not been
	// removed.
	BarrierWait Class = "barrier-wait"
)

// Violation is one finding of a checker.
type Violation struct {
	Class Class
	// Detail is what the checker saw: the symptom ("c1 (exclusive,
	// 30-45) and c2 (exclusive, 40-50) both held /locks/l").
	Detail string
	// Steps are the simulator steps the checker blames, ascending (none
	// if it cannot point at any): a trace view marks their lines.
	Steps []int
	// Cause names the mechanism in one line: which client, which session
	// (given up, expired at step N), which node, which wake-up ("c1 held
	// /locks/l/x-3 of session 0x5 after giving that session up at step
	// 31; c2 acquired at step 40"). Two violations of one class with
	// different causes are two bugs. "" when nothing beyond Detail is
	// known.
	Cause string
	// Chain is the mechanism step by step, in step order: each link a
	// step and what happened at it, for a report to draw (expiry ->
	// deletion -> wake-up -> acquire).
	Chain []Link
}

// Link is one step of a violation's mechanism.
type Link struct {
	Step int
	What string // "c1 gave session 0x5 up"
	// Root marks the event the mechanism starts from, when the harness
	// can tell: a fault, a session given up or paused away, a node
	// deleted by another client. A report marks the first root as the
	// cause (else the first link).
	Root bool
}

// String is the class, the symptom and, if known, the cause, on one line.
func (v Violation) String() string { return fmt.Sprintf("%s: %s", v.Class, v.message()) }

// message is String without the class: the symptom and, if known, the
// cause.
func (v Violation) message() string {
	if v.Cause == "" {
		return v.Detail
	}
	return v.Detail + "; cause: " + v.Cause
}
