// Package election is leader election over ZooKeeper, written only against
// zkapi, so the same code runs on fakezk, under the simulator and on a real
// ensemble.
//
// # The recipe
//
// Each candidate creates an ephemeral sequential node "cand-<guid>-<seq>"
// in the election directory (a container, so nothing is left behind) and
// leads when its node has the lowest sequence number. It is the queue of
// package lock (internal/queue) with the exclusive rule: a follower keeps
// one data watch, on its immediate predecessor, and lists the directory
// again after every wake-up, since the predecessor may have given up
// rather than led.
//
// Who wakes on each change:
//   - the leader resigns or loses its session: its node goes, which wakes
//     the one follower right behind it (and the leader's own Wait, and
//     observers); that follower lists and leads;
//   - a follower gives up (ctx ends) or loses its session: its node goes
//     and wakes the one follower behind it, which lists, finds a new
//     predecessor and watches it; nobody else wakes;
//   - a candidate joins: nobody wakes (no one watches the directory's
//     children but an Observe with no candidate to watch).
//
// # Terms
//
// A Leadership's Term is the czxid of the leader's node: the zxid of the
// transaction that created it. Terms strictly increase across the leaders
// of one directory, because
//   - zxids strictly increase in the order the ensemble applies
//     transactions, across its own leader changes (the epoch is the high
//     half), and never repeat;
//   - within one directory a node's sequence number also grows with that
//     order, so the queue order is creation order: the next leader is a
//     node that was behind the last one, created after it;
//   - a session's expiry removes its nodes but cannot lower anyone's
//     czxid, and a create whose reply was lost either adopted the node it
//     made (its own czxid) or made a new one (a later czxid): a term is
//     never a counter a client keeps, which a new session could restart;
//   - a directory reaped as an empty container and made again starts its
//     sequence numbers over, but every node in it is younger than every
//     node of the old one.
//
// Two clients can believe they lead at once only while a leader whose
// session has expired has not yet heard so (a pause, a partition): its
// term is below the new leader's, and Leadership.Fenced, a multi checking
// that the leader's node still exists, refuses its writes.
//
// # Failure modes of Curator's and kazoo's elections it avoids
//
//   - Two leaders after a reconnect (CURATOR-653, CURATOR-620, fixed by
//     CURATOR-696 with an ephemeralOwner check): a lost create is found
//     again by its guid, and a node is adopted only if the current session
//     owns it (the ephemeralOwner check), and a candidate whose session is
//     lost fails its Campaign instead of re-entering under a new session
//     behind the caller's back: it never leads on an old session's node.
//   - A leader not told that it lost (LeaderSelector not interrupted,
//     CURATOR-54, CURATOR-220 LOST not reported; kazoo's Election only
//     returns from its function): Leadership.Wait returns recipe.ErrLost
//     as soon as the client hears of the session's loss (the watch on
//     the leader's own node fires with EventNotWatching) or finds its
//     node deleted by someone else, and Check and Fenced say the same.
//   - A node left behind on connection loss (CURATOR-202, LeaderSelector
//     after a reconnect to the same session): Release and a failed Campaign
//     delete the node through connection loss until it or its session is
//     gone, so nobody waits forever behind an orphan.
//   - An election wedged after a reconnect (kazoo #116): every wait
//     re-lists after each wake-up and after connection loss, and a
//     vanished predecessor is never watched (a data watch leaves nothing
//     on a missing node).
//   - Herds: a change wakes only the one follower that can act on it.
//
// Every wait takes a context; the package starts no goroutines or timers.
package election
