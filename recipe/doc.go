// Package recipe is the leaf that the recipes (packages lock, rwlock,
// semaphore, election and barrier), the zoo and the harness share, so
// that no recipe imports another: what a held lock, lease or leadership
// can do (Lease), the errors every recipe reports, and the descriptors
// the harness checks a recipe by (Lock, Barrier). It imports zkapi
// alone.
//
// # One Lease
//
// A Mutex's, a read/write lock's and a semaphore's lease and an
// election's leadership are all a node in a queue held by one session:
// each has the node's path and owner, a non-blocking Check and a blocking
// Wait for its loss, a fencing token, a write fenced by the node, and a
// Release. Lease names those seven methods, so a program such as zklock
// holds any of them through one interface. A Mutex and a Semaphore
// return a Lease; the read/write lock and the election return a type of
// their own that is one and adds what is theirs (rwlock's Downgrade, the
// election's Term).
//
// # The descriptors
//
// Lock describes any recipe of the lock family in the form the harness
// drives: an Acquire that returns a Held, and what the checkers need to
// know about it. How many may hold at once (Leases: a semaphore's N) and
// whether the token is a leadership's term (Terms: an election) are the
// descriptor's notions, not any one recipe's, so a user's own semaphore
// or election is checked as zksim's are. A Held needs only Release; the
// harness fences the protected resource's writes when it also has
// Lease's Token and Fenced, as every Lease does. Barrier describes a
// barrier recipe the same way: a double barrier's Enter, whose Leaver
// leaves it, and a Single barrier's Set, Remove and Wait. The
// descriptors of zksim's own recipes, and of the broken ones, are
// package zoo's.
package recipe
