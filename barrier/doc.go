// Package barrier provides ZooKeeper barriers written only against zkapi,
// so the same code runs on fakezk, under the simulator and on a real
// ensemble: a single barrier (Curator's DistributedBarrier, kazoo's
// Barrier) and a double barrier (DistributedDoubleBarrier, DoubleBarrier).
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
// # Double barrier
//
// DoubleBarrier.Enter returns once n members have arrived; Member.Leave
// returns once every member of the same round has left. A member is an
// ephemeral sequential node "member-<guid>-<seq>" in the barrier's
// directory (a container). There is no "ready" node. Instead, the member
// that sees n unmarked members (normally the n-th to arrive) marks the
// lowest n of them in one multi, writing the round (the first and last
// sequence number, "<first> <last>") into each of their nodes, each only
// at version 0. A member is inside once its node is marked. Since marks
// go a round at a time to the lowest unmarked members, the members of a
// round are exactly the nodes whose sequence numbers lie in its range,
// and later arrivals form the next round without mixing with a round
// still inside.
//
// Leave follows ZooKeeper's recipe within the round: the lowest member
// waits on the highest; every other member deletes its node and waits on
// the lowest; everyone lists again after each wake-up, so the lowest
// deletes its node last and that deletion releases the rest.
//
// Who wakes, on each change (every watch is a data watch on one member
// node; no client watches the directory):
//   - an arrival that does not complete a round, or a waiting member
//     that gives up: nobody;
//   - the mark that forms a round: each of the other n-1 members of the
//     round, once (each waits on its own node), which is the minimum;
//   - a leaving member's delete: nobody, unless it is the highest member
//     still in the round, which wakes the lowest, once;
//   - the lowest member's delete (it leaves last): each member that has
//     left and waits, once.
//
// A round thus costs at most 3(n-1) wake-ups, where watching the
// children costs O(n^2).
//
// # Errors
//
// The barrier reports the family's errors of package recipe, in its own
// words: recipe.ErrConfig for a bad path, size or ID, recipe.ErrLost
// when a member's session ended, recipe.ErrReleased for a second Leave.
//
// # Session loss
//
// Member nodes are ephemeral: a member whose session ends is out of the
// barrier, and the others go on.
//   - Before its round formed it is not counted: the others keep waiting
//     for n live members; its own Enter returns recipe.ErrLost.
//   - After its round formed it counts as arrived and then left: Enter
//     has returned, or returns, for the others; its Member's Check, Wait
//     and Leave report ErrLost (Leave at once, without waiting for the
//     others); the others' Leave returns once the rest of the round has
//     left. If it was the lowest, the members waiting on it wake, list
//     again, and the next lowest takes its place.
//   - A member whose session is lost after its own delete, while it waits
//     for the others, gets ErrLost from Leave.
//
// # Failure modes of the classic recipes it avoids
//
//   - Double barrier Leave that hangs, or returns early, when the member
//     the others watch dies or when watches of Enter and Leave mix
//     (CURATOR-233, CURATOR-536, apache/curator#416): every wake-up lists
//     again and the watched node is chosen afresh; Enter's and Leave's
//     watches are on different nodes.
//   - "Count is greater than memberQty" (Netflix/curator#99) and the ready
//     node left behind, after which the barrier never resets: there is no
//     ready node; a round is the range of sequence numbers in its marks,
//     so arrivals during a Leave start the next round and a directory
//     never needs resetting.
//   - A member that misses the ready node: kazoo's first Leave deletes
//     "ready", so a member still in Enter (retrying after connection
//     loss) sets its exists watch afterwards and waits forever; kazoo
//     also counts a leftover "ready" among the members, and waits on a
//     creation that never comes if one is left. Here the mark is on the
//     member's own node and stays until the member deletes it, so
//     re-reading it after any wake-up or reconnect always finds it.
//   - A member's node left after Enter or Leave fails (CURATOR-80): on
//     any failure the node is deleted before the call returns, through
//     connection loss, as package lock does (kazoo tries once).
//   - A lost create reply (ZOOKEEPER-1262): the node is found again by
//     its guid and adopted only if the current session owns it (kazoo's
//     retry takes "node exists" for its own node, whatever its owner).
//     A node so found on a session the client has given up (which the
//     server keeps until it expires) is deleted before the create is
//     retried: left there, it would count as a second member of the same
//     client, and a round could pass Enter with a member missing.
//   - A directory reaped and made again: the container goes once the
//     last member has deleted its node, and the next one numbers its
//     members from 0, while members of the last round may still wait to
//     leave. A node created after a round's mark is no member of it,
//     whatever its number, so they do not wait on the next round.
//   - Silent failure: kazoo's enter and leave swallow errors, leaving
//     only a participating flag; here Check, Wait, Enter and Leave
//     return errors, and ErrLost when the session ended.
//
// An Enter that fails or is cancelled after its round formed has still
// been counted: for the others it arrived and left at once.
//
// Every wait takes a context; there are no goroutines or timers.
package barrier
