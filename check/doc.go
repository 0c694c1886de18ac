// Package check holds the checkers that judge a run, and the violations
// they report: exclusion on lock histories, wakeups, fencing tokens,
// election terms, barrier visits, left-over nodes and register histories.
//
// Whether a history of locks or of a znode register is linearizable is
// decided by package linearize, against porcupine models of a mutex, a
// read/write lock, a counting semaphore and a versioned register; check
// words its findings. Exclusion reports the critical sections
// (linearize.Hold) that linearize.Locks finds at odds with a lock of N
// leases as a MutualExclusion, RWExclusion or MaxLeases violation, with
// the plain cause (who acquired while whom held). Register reports a
// register history without a linearization as a Linearizability
// violation, and one that linearize's step-bounded search could not
// decide as Undecided, which is not a violation: no verdict depends on
// the machine or its load.
//
// Beside these, checkers that are not about linearizability: herd (how
// many clients one lock-node deletion woke), fencing (tokens accepted by
// the protected resource strictly increase; with N leases, whose holders'
// tokens are not ordered, no write is accepted after its writer's lease
// ended: Lapsed), cleanliness (Leftovers: no node a client created,
// persistent or ephemeral, outlives everything that could still remove
// it, unless the recipe keeps it on purpose) and liveness (decided by the
// simulator). An election's leaderships are holds whose token is the
// term: Terms checks one leader per term, terms growing from one
// leadership to the next, and no write accepted from a term older than
// one already begun.
//
// Barriers (package barrier) are judged on Visits, one per Enter call:
// nobody passes Enter before n members arrived (BarrierEnters), nobody
// passes Leave before the rest of its round left (BarrierLeaves), and no
// Wait passes a single barrier before Remove (BarrierWaits).
//
// Every checker reports Violations, each naming its class, the symptom
// (Detail) and, where the checker can tell, the mechanism (Cause, and
// Chain: the steps that led to it); the harness, which knows the
// sessions and nodes of a run, words the mechanism further.
package check

import (
	"fmt"
	"slices"
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
	// (Leases, for N > 1; a mutex's is MutualExclusion).
	MaxLeases   Class = "max-leases"
	Herd        Class = "herd"
	Fencing     Class = "fencing"
	Orphan      Class = "orphan"
	Deadlock    Class = "deadlock"
	NoProgress  Class = "no-progress"
	ClientError Class = "client-error"
	Invariant   Class = "invariant"
	// SharedTerm: two leaderships of an election had one term (Terms).
	SharedTerm Class = "shared-term"
	// TermOrder: a leadership began with a term below one that began
	// before it (Terms).
	TermOrder Class = "term-order"
	// Undecided is not a violation: linearize's search met its bound
	// before it could tell (Register), and says so rather than guess.
	Undecided Class = "undecided"
	// StaleWakeup is not a violation but a note: one change woke,
	// beside the waiters that could proceed, a client whose session had
	// been replaced during its wait (it gave the session up or learned
	// it had expired, and went on waiting on a new one) and whose node
	// had gone with it: it waits for a queue place it no longer has.
	// ZooKeeper does this to a recipe that waits on across a replaced
	// session: the watch set on the new session fires as it must. One
	// wake-up per replaced session costs one read and grows with the
	// faults, not with the waiters, so it fails no recipe (Wakeups).
	StaleWakeup Class = "stale-wakeup"
)

// Note reports whether class is a note rather than a violation: it
// describes the run and never fails a check (Undecided, StaleWakeup).
func (c Class) Note() bool { return c == Undecided || c == StaleWakeup }

// severities orders the classes, worst first.
var severities = []Class{MutualExclusion, RWExclusion, MaxLeases, SharedTerm, TermOrder, BarrierEnter, BarrierLeave, BarrierWait,
	Fencing, Deadlock, NoProgress, Orphan, ClientError, Invariant, Linearizability, Herd, Undecided, StaleWakeup}

// Severity ranks a violation class, 0 the worst: a run is reported by the
// worst class it shows. Unknown classes rank last.
func Severity(class Class) int {
	if i := slices.Index(severities, class); i >= 0 {
		return i
	}
	return len(severities)
}

// Worst is the most severe of classes (which must not be empty); the
// first of those that rank alike.
func Worst(classes []Class) Class {
	return slices.MinFunc(classes, func(a, b Class) int { return Severity(a) - Severity(b) })
}

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
func (v Violation) String() string { return fmt.Sprintf("%s: %s", v.Class, v.Message()) }

// Message is String without the class: the symptom and, if known, the
// cause.
func (v Violation) Message() string {
	if v.Cause == "" {
		return v.Detail
	}
	return v.Detail + "; cause: " + v.Cause
}
