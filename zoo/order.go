package zoo

import (
	"context"
	"errors"
	"strings"

	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// deleteFirstChild is the queue lock whose release deletes the first node
// of the queue instead of its own. Contenders create "lock-<id>-<seq>"
// and wait as the good lock does; it is the queue with its Release step
// swapped.
//
// Origin: blog-post locks that keep no handle on their own node and
// reason "the holder is the lowest node, so unlock deletes the first
// child": getChildren, sort, delete the first. Release retries after a
// connection loss by listing again, as ZooKeeper's old recipes'
// retryOperation did.
//
// Bug: in a plain run the holder's node is first and release is right.
// It breaks whenever the releaser's node is no longer first: it is
// already gone when it releases, because its session expired while it
// held (the holder is not told; docs/zk-semantics.md bug scenario 3), or because
// its first delete was applied, the reply lost, and the retry listed
// again (bug scenario 6). The first node is then the next holder's,
// deleted from under it, and the waiter behind that one acquires: two
// holders at once. (If the next waiter has not yet noticed its grant, its
// Acquire fails instead.)
//
// Violation: mutual-exclusion.
func deleteFirstChild() recipe.Lock { return queued(NameDeleteFirstChild) }

// deleteFirstChildRelease is deleteFirstChild's Release step, and its defect.
func deleteFirstChildRelease(ctx context.Context, h *queue.Hold) (gone bool, err error) {
	for {
		err := deleteFirst(ctx, h.Q)
		if !isLoss(err) {
			return false, err
		}
		if err := queue.AwaitLink(ctx, h.Q.Conn); err != nil {
			return false, err
		}
	}
}

func deleteFirst(ctx context.Context, q queue.Queue) error {
	ms, err := q.List(ctx, lockKind)
	if err != nil || len(ms) == 0 {
		return err
	}
	err = q.Conn.Delete(ctx, q.Path(ms[0].Name), zkapi.AnyVersion)
	if errors.Is(err, zkapi.ErrNoNode) {
		return nil
	}
	return err
}

// splitDash is the queue lock that reads its nodes' names with code
// written for another shape of name. Contenders create "lock-<id>-<seq>",
// as the good lock does; the code ordering them was written for names
// "<prefix>-<seq>", such as the recipes page's "lock-<seq>" or
// go-zookeeper's protected "_c_<32 hex digits>-lock-<seq>" read after its
// dash-free prefix, and takes what follows the first '-' for the
// sequence, sorting by that string. It is the queue with its Order step
// swapped.
//
// Origin: hand-written code reading names with a guid in them; the same
// family as ZOOKEEPER-2931, where the WriteLock recipe sorted
// "x-<sessionId>-<seq>" by the whole name, session id before sequence,
// and two clients held the lock.
//
// Bug (docs/zk-semantics.md bug scenario 10): the order is that of the holder
// ids, not of the sequence numbers, so a newcomer whose id sorts low is
// first at once and holds alongside the current holder. Violation:
// mutual-exclusion.
func splitDash() recipe.Lock { return queued(NameSplitDash) }

// afterFirstDash is splitDash's Order step, and its defect: it orders
// members by what follows the first '-' of their names.
func afterFirstDash(a, b queue.Member) int {
	key := func(m queue.Member) string { _, rest, _ := strings.Cut(m.Name, "-"); return rest }
	return strings.Compare(key(a), key(b))
}
