// Package barrier provides ZooKeeper barriers written only against zkapi,
// so the same code runs on fakezk, under the simulator and on a real
// ensemble: a single barrier (Curator's DistributedBarrier, kazoo's
// Barrier).
//
// # Single barrier
//
// A Barrier is one persistent node: Set creates it, Remove deletes it,
// and Wait blocks while it exists. Each waiter holds one exists watch on
// the node, so Remove wakes every waiter exactly once (each must learn of
// it, so no fewer wake-ups will do) and nothing else wakes anyone except
// a change of the node's data. Missing ancestors are created as
// containers, so nothing is left behind once the barrier is removed.
//
// Every wait takes a context; there are no goroutines or timers.
package barrier
