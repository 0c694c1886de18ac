// Package lock provides exclusive ZooKeeper locks written only against
// zkapi, so the same code runs on fakezk, under the simulator and on a real
// ensemble.
//
// # The recipe
//
// Each contender creates an ephemeral sequential node "lock-<guid>-<seq>"
// in the lock directory and holds the lock when its node has the lowest
// sequence number. A waiter watches only its immediate predecessor, with a
// data watch (getData), so a release wakes one waiter (no herd), and a
// predecessor that is already gone leaves no dangling creation watch. After
// every wake-up it lists the directory again: the predecessor may have
// given up rather than released.
//
// It improves on the classic recipes in the ways that bite in production:
//   - a create whose reply is lost is found again by its guid, and adopted
//     only if the current session owns it (ZOOKEEPER-1262, CURATOR-498);
//   - members are ordered by the numeric sequence, foreign children are
//     ignored (ZOOKEEPER-2931), and a directory whose sequence counter has
//     reached 2^31-1 is refused loudly instead of granting twice;
//   - on timeout, cancellation or error the node is removed even through
//     connection loss, so no orphan blocks the queue (CURATOR-202);
//   - session loss is loud: Lease.Check, Lease.Wait and Release report it,
//     and Lease.Fenced makes a write conditional on still holding;
//   - every wait takes a context; there are no goroutines or timers.
//
// Acquire returns a recipe.Lease, the interface that the leases of
// rwlock and semaphore and the election's leadership implement too. Its
// fencing token is its node's czxid: successive holders of one lock get
// strictly increasing tokens. The errors it reports are package recipe's
// sentinels (recipe.ErrLost, recipe.ErrWouldBlock, ...), which every
// recipe shares.
//
// Mutex is re-entrant per handle like Curator's InterProcessMutex when
// Options.Reentrant is set (the handle is the holder; each Acquire needs a
// Release), and otherwise behaves like InterProcessSemaphoreMutex: a second
// Acquire on the same handle queues like anyone else. MultiMutex takes
// several locks all or nothing (InterProcessMultiLock).
package lock
