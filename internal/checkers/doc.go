// Package checkers holds the checkers that judge a run, and the
// violations (package check's vocabulary) they report: exclusion on lock histories, wakeups, fencing tokens,
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
// Beside these, herd (how many clients one lock-node deletion woke):
// Wakeups counts them per change when the simulator says which change
// fired each watch; QueueHerd, for a history that does not say (a real
// server's), has linearize.Herd search for an assignment of wake-ups to
// changes. And checkers that are not about linearizability: fencing
// (tokens accepted by the protected resource strictly increase; with N
// leases, whose holders' tokens are not ordered, no write is accepted
// after its writer's lease ended: Lapsed), cleanliness (Leftovers: no node a client created,
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
// Every checker reports check.Violations, each naming its class, the symptom
// (Detail) and, where the checker can tell, the mechanism (Cause, and
// Chain: the steps that led to it); the harness, which knows the
// sessions and nodes of a run, words the mechanism further.
package checkers
