package zoo

import (
	"context"
	"errors"

	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/zkapi"
)

// AssumeOnWake is the queue lock that takes its predecessor's deletion as
// the grant: each contender creates "lock-<id>-<seq>", lists the
// directory, and if it is not first watches the node just before its own
// (getData with a watch); when that node's NodeDeleted arrives it returns
// holding the lock without listing again. Everything else is correct:
// lost-create lookup, numeric order, and an Acquire that honours ctx by
// deleting its node and returning, so waiters can give up.
//
// Origin: the usual simplification of the recipe in blog posts (in Java,
// a Watcher that counts down a CountDownLatch on NodeDeleted, after which
// the lock is "acquired"). The ZooKeeper recipes page says to go back to
// getChildren after the notification.
//
// Bug (ZK-SEMANTICS bug scenario 5): a predecessor is deleted not only by
// a holder's release but also by a waiter that gives up (timeout, cancel,
// its session's end). Then the node before it may still be held, and this
// waiter holds alongside that holder. Violation: mutual-exclusion.
func AssumeOnWake() lock.Recipe {
	return watchingPredecessor(NameAssumeOnWake, wakeMeansGranted)
}

// watchingPredecessor is the exclusive queue lock that waits in
// waitPredecessor with watch, where the two exhibits here put their defect.
func watchingPredecessor(name string, watch predecessorWatch) lock.Recipe {
	return exclusive(name, func(ctx context.Context, n *node, dir string) error {
		return waitPredecessor(ctx, n, dir, bySeq("lock-"), watch)
	})
}

// wakeMeansGranted carries AssumeOnWake's defect.
func wakeMeansGranted(ctx context.Context, n *node, pred string) (bool, error) {
	_, _, w, err := n.conn.GetW(ctx, pred)
	switch {
	case errors.Is(err, zkapi.ErrNoNode):
		return false, nil // gone already: list again (correct)
	case isLoss(err):
		return false, awaitConnected(ctx, n.conn)
	case err != nil:
		return false, err
	}
	ev, err := w.Wait(ctx)
	if err != nil {
		return false, err
	}
	// The defect: whoever deleted the predecessor, the lock is taken to be
	// ours now, without listing the directory again.
	return ev.Type == zkapi.EventNodeDeleted, nil
}

// ExistsAbsence is the queue lock that takes a missing predecessor as the
// grant: each contender creates "lock-<id>-<seq>", lists the directory,
// and calls exists(predecessor, watch); if exists says the predecessor is
// gone it returns holding the lock without listing again; if it exists,
// it waits for the watch and lists again (correct). Everything else is
// correct, and Acquire honours ctx by deleting its node.
//
// Origin: step 5 of the lock on the ZooKeeper recipes page ("if exists()
// returns null, go to step 2") read as "if exists() returns null, the lock
// is mine", a shortcut common in blog-post code.
//
// Bug (ZK-SEMANTICS bug scenarios 4 and 5): the predecessor can vanish
// between getChildren and exists because its owner gave up, not because it
// held and released; an earlier node may still be held, and this waiter
// then holds alongside its holder. It also leaves the exists watch on the
// missing node behind (a creation watch that never fires: sequential names
// are not reused). Violation: mutual-exclusion.
func ExistsAbsence() lock.Recipe {
	return watchingPredecessor(NameExistsAbsence, absenceMeansGranted)
}

// absenceMeansGranted carries ExistsAbsence's defect.
func absenceMeansGranted(ctx context.Context, n *node, pred string) (bool, error) {
	_, ok, w, err := n.conn.ExistsW(ctx, pred)
	switch {
	case isLoss(err):
		return false, awaitConnected(ctx, n.conn)
	case err != nil:
		return false, err
	case !ok:
		return true, nil // the defect: absent is taken as released by a holder
	}
	_, err = w.Wait(ctx)
	return false, err
}
