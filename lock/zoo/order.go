package zoo

import (
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/zkapi"
)

// DeleteFirstChild is the queue lock whose release deletes the first child
// of the directory, sorted by name, instead of its own node. Contenders
// create "lock-<seq>" (the holder id is the node's data, which the
// lost-create lookup compares along with ephemeralOwner) and wait
// correctly on their predecessor.
//
// Origin: blog-post locks that keep no handle on their own node and
// reason "the holder is the lowest node, so unlock deletes the first
// child": getChildren, sort, delete the first. Release retries after a
// connection loss by listing again, as ZooKeeper's old recipes'
// retryOperation did.
//
// Bug: in a plain run, names "lock-%010d" sort by name exactly as by
// sequence, the holder's node is first and release is right. It breaks
// whenever the releaser's node is no longer first by name:
//   - the holder's node is already gone when it releases, because its
//     session expired while it held (the holder is not told; ZK-SEMANTICS
//     bug scenario 3), or because its first delete was applied, the reply
//     lost, and the retry listed again (bug scenario 6). The first child
//     is then the next holder's node, deleted from under it, and the
//     waiter behind that one acquires: two holders at once. (If the next
//     waiter has not yet noticed its grant, its Acquire fails instead.)
//   - a foreign child sorting before "lock-" (bug scenario 10), or a
//     wrapped negative sequence number: release deletes that and leaves
//     its own node, on which everyone behind then waits until the
//     session ends.
//
// Violation: mutual-exclusion (also deadlock and orphan in a messy
// directory).
func DeleteFirstChild() lock.Recipe {
	prefix := func(string) string { return "lock-" }
	return lock.Recipe{Name: NameDeleteFirstChild, Acquire: queueRecipe(NameDeleteFirstChild, prefix, join, holdFirstChild)}
}

// holdFirstChild waits correctly, and then forgets its node.
func holdFirstChild(ctx context.Context, n *node, dir string) (lock.Held, error) {
	if _, err := leaveOnFailure(NameDeleteFirstChild, waitLockFirst)(ctx, n, dir); err != nil {
		return nil, err
	}
	return &firstChild{conn: n.conn, dir: dir}, nil
}

// firstChild is DeleteFirstChild's Held: it remembers only the directory.
type firstChild struct {
	conn     zkapi.Conn
	dir      string
	released atomic.Bool
}

// Release carries DeleteFirstChild's defect.
func (h *firstChild) Release(ctx context.Context) error {
	if h.released.Swap(true) {
		return nil
	}
	for {
		err := h.deleteFirst(ctx)
		if !isLoss(err) {
			return err
		}
		if err := awaitConnected(ctx, h.conn); err != nil {
			return err
		}
	}
}

func (h *firstChild) deleteFirst(ctx context.Context) error {
	kids, _, err := h.conn.Children(ctx, h.dir)
	if err != nil || len(kids) == 0 {
		return err
	}
	sort.Strings(kids)
	err = h.conn.Delete(ctx, h.dir+"/"+kids[0], zkapi.AnyVersion)
	if errors.Is(err, zkapi.ErrNoNode) {
		return nil
	}
	return err
}

// SplitDash is the queue lock that reads the sequence from the wrong part
// of a protected name. Nodes are named like Curator's protected mode,
// "_c_<UUID>-lock-<seq>", with a dashed UUID; the code ordering them was
// written for go-zookeeper's dash-free "_c_<32 hex digits>-" prefix and
// takes what follows the first '-' as "lock-<seq>", sorting by that
// string. Everything else is correct (the lost-create lookup by protected
// prefix and ephemeralOwner, one watch on the predecessor, re-listing,
// cleanup).
//
// The UUID is the name-based (version 3) UUID of the holder id, as Java's
// UUID.nameUUIDFromBytes computes it, so names are deterministic and every
// id gets dashes wherever it comes from.
//
// Origin: Curator's protected-mode names (CreateBuilder.withProtection)
// read by hand-written code; the same family as ZOOKEEPER-2931, where the
// WriteLock recipe sorted "x-<sessionId>-<seq>" by the whole name, session
// id before sequence, and two clients held the lock.
//
// Bug (ZK-SEMANTICS bug scenario 10): the order is that of the UUIDs'
// tails, not of the sequence numbers, so a newcomer whose UUID sorts low
// is first at once and holds alongside the current holder. Violation:
// mutual-exclusion.
func SplitDash() lock.Recipe {
	prefix := func(id string) string { return "_c_" + dashedUUID(id) + "-lock-" }
	return lock.Recipe{Name: NameSplitDash, Acquire: queued(NameSplitDash, prefix, func(ctx context.Context, n *node, dir string) error {
		return waitFirst(ctx, n, dir, afterFirstDash)
	})}
}

// afterFirstDash carries SplitDash's defect: it orders protected lock
// nodes by what follows the first '-'.
func afterFirstDash(kids []string) []string {
	var ms []string
	for _, k := range kids {
		if _, ok := seqOf(k); ok && strings.HasPrefix(k, "_c_") && strings.Contains(k, "-lock-") {
			ms = append(ms, k)
		}
	}
	key := func(name string) string { _, rest, _ := strings.Cut(name, "-"); return rest }
	sort.Slice(ms, func(i, j int) bool { return key(ms[i]) < key(ms[j]) })
	return ms
}

// holderUUID is the name-based (version 3, MD5) UUID of id, byte for byte
// Java's UUID.nameUUIDFromBytes.
func holderUUID(id string) [16]byte {
	u := md5.Sum([]byte(id))
	u[6] = u[6]&0x0f | 0x30
	u[8] = u[8]&0x3f | 0x80
	return u
}

// dashedUUID renders holderUUID(id) as UUID.toString does.
func dashedUUID(id string) string {
	u := holderUUID(id)
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}
