// Package semaphore provides a herd-free ZooKeeper counting semaphore: at
// most N leases over one directory, written only against zkapi (through
// zksim's lock mechanics, internal/queue).
//
// # The recipe
//
// The directory has two children, both containers: queue, where each
// contender creates an ephemeral sequential node
// "lease_n<N>-<guid>-<seq>", and leases, which holds one ephemeral node per
// lease held, named after its member's queue node. Waiters are served in
// FIFO order of the numeric sequence. The first waiter (the oldest member
// left in the queue) counts the leases; if fewer than N are held it takes
// one in a single multi, its promotion:
//
//	setData(dir/queue, version v)   v read with the queue's listing
//	create(dir/leases/<member>, ephemeral)
//	delete(dir/queue/<member>)
//
// The setData is a compare-and-set: every promotion bumps the queue's
// version, so two promotions cannot both pass on one count; a release
// only deletes, which only lowers the count, and does not touch it. The
// version is the queue's rather than the leases': the queue holds the
// promoting member's node until the multi, so it is the same node all
// along and its version never repeats, whereas the leases node, a
// container, may be reaped and made again (its version back at 0) between
// a count and a promotion.
//
// Who watches what, so that a change wakes only a client that can act on
// it:
//   - the first waiter alone holds a child watch, on the leases: it is
//     the only client a freed lease concerns;
//   - every later waiter holds one data watch, on its immediate
//     predecessor in the queue, and nothing else;
//   - nobody watches the queue's children, so a member joining wakes
//     nobody.
//
// So a release (or a holder's session expiring) wakes exactly one waiter,
// the first, which takes the freed lease; its promotion deletes its queue
// node, which wakes exactly one more, its successor, now the first waiter.
// A waiter that gives up (or whose session ends) wakes its successor
// alone. Every change wakes at most one client, and the harness checks
// that bound (as for a lock). Every wake-up lists the queue again and
// re-checks; no watch event is taken as a grant.
//
// The first waiter counts the leases first without a watch, and only if
// they are all taken counts again leaving the child watch, so a waiter
// granted on a wake-up leaves no watch behind. Only when a lease is freed
// between those two counts does the second one grant, and its watch then
// fires once at a holder, which wakes nothing.
//
// A free lease is never left untaken while someone waits: the first
// waiter's child watch fires on any lease leaving, and a waiter whose
// predecessor leaves the queue (promoted or gone) is woken by its
// deletion.
//
// A promotion whose reply is lost is resolved by name and owner: after a
// sync, a lease node of the member's name owned by its session means it
// was applied; its queue node still there means it was not. On any
// failure Acquire deletes both nodes through connection loss, the lease
// node too in case a promotion was applied under a session that replaced
// the member's.
//
// # Max leases
//
// N is part of every node's name, so each listing checks it at no cost.
// A client that finds a member of another N ahead of its own node (in the
// queue, or holding a lease: holders are ahead of every waiter) fails
// with ErrMaxLeases (and removes its node) instead of counting the others'
// leases with its own N (Curator's InterProcessSemaphoreV2 trusts each
// client's maxLeases, so two clients that disagree over-grant). Members of
// another N behind it are ignored: they find it ahead and refuse. Any two
// leases held at once were granted under one N, since the younger
// holder's count of the leases showed the older (a promotion after the
// count would have failed its compare-and-set); so nothing is granted beyond the N
// the holders share. Once every member has gone, any N may start afresh.
// The price is that a waiter of the established N also fails if a client
// of another N sits ahead of it, even one about to refuse itself: mixing N
// is a deployment error, and it fails loudly.
//
// # Fencing tokens
//
// A lease's token (recipe.Lease.Token) is its lease node's czxid, the
// zxid of its promotion. With N leases, up to N holders hold at once,
// each with its own token: a token is unique per lease and a
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
//     Release report recipe.ErrLost.
//   - CURATOR-173 (lease directories not reapable): the directory, its
//     queue and its leases are containers, so the server removes them
//     once empty (and a member makes them again as it needs them).
//   - kazoo #213 (a non-blocking acquire over-grants, since it took a
//     lease outside the inner lock): TryAcquire runs the same rule as
//     Acquire on its own node and fails with recipe.ErrWouldBlock, removing the
//     node, unless no member waits ahead of it and fewer than N leases
//     are held; its promotion is the same compare-and-set.
//   - a max-leases mismatch between clients is refused (see above).
//
// There are no goroutines, timers or wall clock inside; every wait takes
// a context.
package semaphore
