package zoo

import (
	"context"
	"errors"

	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/zkapi"
)

// NoGUIDRetry is the queue lock that retries a create blindly: each
// contender creates "lock-<id>-<seq>", and when the create fails with
// connection loss it simply creates again. It then waits correctly on its
// predecessor (numeric order, re-listing after every wake-up, cleanup of
// the node it knows on failure).
//
// Origin: the lock as the ZooKeeper recipes page described it before
// ZOOKEEPER-1262 added the GUID and its note on recoverable errors; zk-ruby
// zk#54 ("creates an additional ephemeral znode ... preventing the
// instance from ever getting the lock"); samuel/go-zookeeper#229.
//
// Bug (ZK-SEMANTICS bug scenario 1): a create applied by the server whose
// reply was lost leaves a node the client does not know about. The blind
// retry queues a second node behind it, which then waits on the first, its
// own orphan, forever: the holder id is right there in the orphan's name,
// but nobody looks. Everyone queued behind waits too, until the session
// ends; giving up removes only the second node. Violation: deadlock (and
// orphan).
func NoGUIDRetry() lock.Recipe {
	return lock.Recipe{Name: NameNoGUIDRetry,
		Acquire: queueRecipe(NameNoGUIDRetry, lockPrefix, createBlindly, leaveOnFailure(NameNoGUIDRetry, waitLockFirst))}
}

// createBlindly carries NoGUIDRetry's defect.
func createBlindly(ctx context.Context, conn zkapi.Conn, dir, prefix string, data []byte) (*node, error) {
	return createLoop(ctx, conn, dir, prefix, data, func(ctx context.Context) (*node, error) {
		// The defect: the create may have been applied; create again
		// without looking for the node it made.
		return nil, awaitConnected(ctx, conn)
	})
}

// TimeoutLeak is a correct queue lock (lost-create lookup, numeric order,
// one watch on the predecessor, re-listing after every wake-up, cleanup
// through connection loss) except when ctx ends while it waits: then
// Acquire returns ctx's error and leaves its node in the queue.
//
// Origin: ZK-SEMANTICS bug scenario 6 (CURATOR-202, a timed acquire whose
// node is not removed); aiozk's "Dead lock on acquire timeout"
// (micro-fan/aiozk#34) is the same defect.
//
// Bug: the abandoned node stays first in line once the nodes before it
// go, and nobody will delete it: everyone behind waits until the session
// that made it ends (for a long-lived client process, forever). Violation:
// deadlock while the session lives, an orphan node in any case.
func TimeoutLeak() lock.Recipe {
	return lock.Recipe{Name: NameTimeoutLeak, Acquire: queueRecipe(NameTimeoutLeak, lockPrefix, join, leaveUnlessTimedOut)}
}

// leaveUnlessTimedOut carries TimeoutLeak's defect.
func leaveUnlessTimedOut(ctx context.Context, n *node, dir string) (lock.Held, error) {
	if err := waitLockFirst(ctx, n, dir); err != nil {
		if ctx.Err() != nil {
			return nil, wrap(NameTimeoutLeak, dir, err) // the defect: the node stays
		}
		return nil, wrap(NameTimeoutLeak, dir, errors.Join(err, n.leave(ctx)))
	}
	return n, nil
}
