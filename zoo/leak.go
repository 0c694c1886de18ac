package zoo

import (
	"context"

	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/recipe"
)

// noGUIDRetry is the queue lock that retries a create blindly: each
// contender creates "lock-<id>-<seq>", and when the create fails with
// connection loss it waits for the link and simply creates again. It then
// waits as the good lock does (numeric order, one watch on the
// predecessor, re-listing after every wake-up, cleanup of the node it
// knows on failure): the queue with its FindLost step swapped.
//
// Origin: the lock as the ZooKeeper recipes page described it before
// ZOOKEEPER-1262 added the GUID and its note on recoverable errors; zk-ruby
// zk#54 ("creates an additional ephemeral znode ... preventing the
// instance from ever getting the lock"); samuel/go-zookeeper#229.
//
// Bug (docs/zk-semantics.md bug scenario 1): a create applied by the server whose
// reply was lost leaves a node the client does not know about. The blind
// retry queues a second node behind it, which then waits on the first, its
// own orphan, forever: the holder id is right there in the orphan's name,
// but nobody looks. Everyone queued behind waits too, until the session
// ends; giving up removes only the second node. Violation: deadlock (and
// orphan).
func noGUIDRetry() recipe.Lock { return queued(NameNoGUIDRetry) }

// lookNowhere is noGUIDRetry's FindLost step, and its defect: the create
// may have been applied, but it reports nothing found, so the queue
// creates again.
func lookNowhere(ctx context.Context, q queue.Queue, _ queue.Request) (string, int64, error) {
	return "", 0, queue.AwaitLink(ctx, q.Conn)
}

// timeoutLeak is the good queue lock (lost-create lookup, numeric order,
// one watch on the predecessor, re-listing after every wake-up, cleanup
// through connection loss) except when ctx ends while it waits: then
// Acquire returns ctx's error and leaves its node in the queue. It is the
// queue with its Abandon step swapped.
//
// Origin: docs/zk-semantics.md bug scenario 6 (CURATOR-202, a timed acquire whose
// node is not removed); aiozk's "Dead lock on acquire timeout"
// (micro-fan/aiozk#34) is the same defect.
//
// Bug: the abandoned node stays first in line once the nodes before it
// go, and nobody will delete it: everyone behind waits until the session
// that made it ends (for a long-lived client process, forever). Violation:
// deadlock while the session lives, an orphan node in any case.
func timeoutLeak() recipe.Lock { return queued(NameTimeoutLeak) }

// stayOnTimeout is timeoutLeak's Abandon step, and its defect: when ctx
// has ended, the node stays.
func stayOnTimeout(ctx context.Context, h *queue.Hold, _ error) error {
	if ctx.Err() != nil {
		return nil // the defect
	}
	return h.Q.Leave(ctx, h.Path, h.SID)
}
