package zoo

import (
	"context"
	"errors"

	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// assumeOnWake is the queue lock that takes its predecessor's deletion as
// the grant: each contender creates "lock-<id>-<seq>", lists the
// directory, and if it is not first watches the node just before its own
// (getData with a watch); when that node's NodeDeleted arrives it returns
// holding the lock without listing again. Everything else is the good
// lock (lost-create lookup, numeric order, and an Acquire that honours
// ctx by deleting its node, so waiters can give up): the queue with its
// Watch step swapped.
//
// Origin: the usual simplification of the recipe in blog posts (in Java,
// a Watcher that counts down a CountDownLatch on NodeDeleted, after which
// the lock is "acquired"). The ZooKeeper recipes page says to go back to
// getChildren after the notification.
//
// Bug (docs/zk-semantics.md bug scenario 5): a predecessor is deleted not only by
// a holder's release but also by a waiter that gives up (timeout, cancel,
// its session's end). Then the node before it may still be held, and this
// waiter holds alongside that holder. Violation: mutual-exclusion.
func assumeOnWake() recipe.Lock { return queued(NameAssumeOnWake) }

// wakeMeansGranted is assumeOnWake's Watch step.
func wakeMeansGranted(ctx context.Context, h *queue.Hold, p string, _ bool) (queue.Wake, error) {
	_, _, w, err := h.Q.Conn.GetW(ctx, p)
	switch {
	case errors.Is(err, zkapi.ErrNoNode), errors.Is(err, zkapi.ErrConnectionLoss):
		return queue.Changed, nil // gone already: list again (correct)
	case err != nil:
		return queue.Changed, err
	}
	ev, err := h.WaitWatch(ctx, w)
	if err != nil || ev.Type != zkapi.EventNodeDeleted {
		return queue.Changed, err
	}
	// The defect: whoever deleted the predecessor, the lock is taken to be
	// ours now, without listing the directory again.
	return queue.Granted, nil
}

// existsAbsence is the queue lock that takes a missing predecessor as the
// grant: each contender creates "lock-<id>-<seq>", lists the directory,
// and calls exists(predecessor, watch); if exists says the predecessor is
// gone it returns holding the lock without listing again; if it exists,
// it waits for the watch and lists again (correct). Everything else is
// the good lock, and Acquire honours ctx by deleting its node: the queue
// with its Watch step swapped.
//
// Origin: step 5 of the lock on the ZooKeeper recipes page ("if exists()
// returns null, go to step 2") read as "if exists() returns null, the lock
// is mine", a shortcut common in blog-post code.
//
// Bug (docs/zk-semantics.md bug scenarios 4 and 5): the predecessor can vanish
// between getChildren and exists because its owner gave up, not because it
// held and released; an earlier node may still be held, and this waiter
// then holds alongside its holder. It also leaves the exists watch on the
// missing node behind (a creation watch that never fires: sequential names
// are not reused). Violation: mutual-exclusion.
func existsAbsence() recipe.Lock { return queued(NameExistsAbsence) }

// absenceMeansGranted is existsAbsence's Watch step.
func absenceMeansGranted(ctx context.Context, h *queue.Hold, p string, _ bool) (queue.Wake, error) {
	_, ok, w, err := h.Q.Conn.ExistsW(ctx, p)
	switch {
	case errors.Is(err, zkapi.ErrConnectionLoss):
		return queue.Changed, nil
	case err != nil:
		return queue.Changed, err
	case !ok:
		return queue.Granted, nil // the defect: absent is taken as released by a holder
	}
	_, err = h.WaitWatch(ctx, w)
	return queue.Changed, err
}
