// Package semaphore provides a herd-free ZooKeeper counting semaphore: at
// most N leases over one directory, written only against zkapi (through
// zksim's lock mechanics, internal/queue).
//
// # The recipe
//
// Each contender creates an ephemeral sequential node
// "lease_n<N>-<guid>-<seq>" in the directory. Members are ordered by the
// numeric sequence; the first N hold a lease, the others wait in FIFO
// order. Who watches what, so that a change wakes only a client that can
// act on it:
//   - the first waiter (the member at index N) alone holds a child watch
//     on the directory: it is the only client a freed lease concerns;
//   - every later waiter holds one data watch, on its immediate
//     predecessor, and nothing else;
//   - a member that is granted marks its node (sets its data, so the data
//     version goes above 0) before Acquire returns: the mark wakes its
//     successor, which is now the first waiter and moves its watch to the
//     directory.
//
// So a release (or a holder's session expiring) wakes exactly one waiter,
// the first, which takes the freed lease (one listing); that grant wakes
// at most one more, the new first waiter, which takes no lease but
// re-hooks (two listings). A waiter that gives up wakes its successor.
// The first waiter also wakes when a member joins or leaves behind it
// (its watch is on the directory; ZooKeeper has no child watch narrower
// than that, and zkapi no wait on several watches at once, which watching
// the N holders would need): so a later waiter that gives up wakes two,
// its successor and the first waiter, and any other change one. Never a
// herd: what one change wakes does not grow with the waiters. Every
// wake-up lists the directory again and re-checks; no watch event is
// taken as a grant.
//
// After a wake-up the first waiter lists without a watch, and only if it
// is still the first waiter lists again leaving the child watch, so a
// waiter granted on a wake-up leaves no watch behind. Only when a lease
// is freed between those two listings does the second one grant, and its
// watch then stays until the directory next changes: one stray
// notification to a holder, which wakes nothing.
//
// A free lease is never left untaken while someone waits: the first
// waiter's child watch fires on any holder leaving, and a waiter whose
// predecessor is granted or gone is woken by the mark or the deletion.
//
// # Max leases
//
// N is part of every node's name, so each listing checks it at no cost.
// A client that finds a member of another N ahead of its own node fails
// with ErrMaxLeases (and removes its node) instead of counting the others'
// leases with its own N (Curator's InterProcessSemaphoreV2 trusts each
// client's maxLeases, so two clients that disagree over-grant). Members of
// another N behind it are ignored: they find it ahead and refuse. Any two
// leases held at once were granted under one N, since the younger
// holder's listing showed the older; so nothing is granted beyond the N
// the holders share. Once every member has gone, any N may start afresh.
// The price is that a waiter of the established N also fails if a client
// of another N sits ahead of it, even one about to refuse itself: mixing N
// is a deployment error, and it fails loudly.
//
// # Fencing tokens
//
// A Lease's token is its node's czxid. With N leases, up to N holders hold
// at once, each with its own token: a token is unique per lease and a
// later-created lease has a larger one, but unlike a mutex's, a token
// lower than one already seen does not mean its holder has lost its lease.
// A token identifies the lease (for logs, for a resource that tracks each
// lease apart); to make a write conditional on still holding, use
// Lease.Fenced, which checks the lease node in the same multi.
//
// # Known failures of other semaphores, and what this one does
//
//   - CURATOR-315, CURATOR-335, CURATOR-462 (a lease node orphaned when
//     acquire is interrupted, times out or reconnects between the create
//     and the listing) and kazoo #429 (zombie nodes after network errors):
//     a create whose reply is lost is found again by its guid and adopted
//     only if the current session owns it, and on any failure,
//     cancellation or timeout the node is deleted through connection loss
//     before Acquire returns.
//   - CURATOR-595 (a LOST session does not free its lease for others, and
//     the holder is not told): leases are ephemeral nodes of the session,
//     so the server frees them with it, and Lease.Check, Lease.Wait and
//     Release report ErrLost.
//   - CURATOR-173 (lease directories not reapable): the directory is a
//     container, so the server removes it once empty.
//   - kazoo #213 (a non-blocking acquire over-grants, since it took a
//     lease outside the inner lock): TryAcquire runs the same rule as
//     Acquire on its own node and fails with ErrWouldBlock, removing the
//     node, unless fewer than N members precede it.
//   - a max-leases mismatch between clients is refused (see above).
//
// There are no goroutines, timers or wall clock inside; every wait takes
// a context.
package semaphore
