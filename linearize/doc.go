// Package linearize decides whether a history is linearizable against a
// porcupine model: the critical sections of a mutex, a read/write lock or
// a counting semaphore (Locks), and the gets and compare-and-set writes of
// a znode used as a versioned register (Register). It is a leaf: it
// imports porcupine and the standard library only, and the harness's
// checkers word what it finds as violations (check.MutualExclusion,
// check.Linearizability, ...).
//
// A lock history is a list of Holds: when a client asked for a lock (Call),
// when it got it (Start), and when it stopped holding it (End), which is
// when it began to release or, earlier, when its session lost the lock
// node. The models partition by lock path. An acquire takes effect
// between its call and its return, a release at its call. Locks decides
// exactly and without search (an interval check for one holder, a sweep
// for N leases) and returns the holds that show a history is not
// linearizable; property tests check both against porcupine's search over
// the models. WriteHTML draws porcupine's timeline of the failing lock.
//
// A register history is a list of RegisterOps; a set whose reply was
// lost has an unknown outcome: it may or may not have taken effect.
// Register's search is porcupine's, and many unknown outcomes open at
// once make it exponential.
//
// A lock queue's history is a list of QueueOps: nodes enqueued and
// dequeued in a lock directory, and wake-ups (a watch set, then a
// Wait's return with its event). Herd decides whether every change woke
// at most one client that could proceed. The history need not say which
// change fired which watch (a real server's notifications carry no
// zxid): the model fires each watch at the first change after it was
// set that concerns it, and porcupine's search looks for an order of the
// concurrent operations in which no change wakes two clients that
// count.
//
// Every search here is bounded by a number of porcupine model steps
// (RegisterSteps for Register, as many for each of Herd's searches and
// for a timeline), never by wall-clock time: porcupine searches one
// partition sequentially and deterministically, so the same history
// meets the bound at the same step on every machine, and no verdict
// depends on the machine or its load. A register or queue history the
// bound cannot decide is undecided (Register and Herd return decided
// false), which is not a violation. Locks needs no bound.
package linearize
