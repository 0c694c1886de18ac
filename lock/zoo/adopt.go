package zoo

import (
	"context"

	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/zkapi"
)

// AdoptDying is the queue lock whose lost-create lookup trusts the name:
// each contender creates "lock-<id>-<seq>" holding its id, and after a
// create fails with connection loss it syncs, lists the directory and
// takes the node with its prefix and its data as the one the lost create
// made, whichever session owns it. Everything else is correct: numeric
// order, one watch on the predecessor, re-listing after every wake-up,
// cleanup through connection loss.
//
// Origin: Curator's protected mode until CURATOR-498 was fixed in 2019
// (findProtectedNodeInForeground matched the "_c_<UUID>-" prefix only), and
// every lock that finds its lost node by a GUID in its name without
// looking at ephemeralOwner, such as go-zookeeper's
// CreateProtectedEphemeralSequential.
//
// Bug (ZK-SEMANTICS bug scenario 2): the client may have given up its
// session between the create and the lookup (a client-side session
// timeout, or a handle closed and reopened after a long disconnection,
// without the server hearing of it) and now runs on a new one, while the
// server still holds the old session and the node it created. The lookup
// adopts that node. When the old session expires the node goes; the
// adopter, which watches only its predecessor, goes on holding, and the
// next in line holds too. Only a client that abandons its session on its
// own shows it: a session the server has expired has no nodes left to
// adopt. Violation: mutual-exclusion.
func AdoptDying() lock.Recipe {
	return lock.Recipe{Name: NameAdoptDying,
		Acquire: queueRecipe(NameAdoptDying, lockPrefix, joinByName, leaveOnFailure(NameAdoptDying, waitLockFirst))}
}

// joinByName carries AdoptDying's defect.
func joinByName(ctx context.Context, conn zkapi.Conn, dir, prefix string, data []byte) (*node, error) {
	return createLoop(ctx, conn, dir, prefix, data, func(ctx context.Context) (*node, error) {
		return findNode(ctx, conn, dir, prefix, data, anyOwner)
	})
}

// anyOwner is the defect: a node with the right name and data is taken as
// the current session's, without comparing its ephemeralOwner.
func anyOwner(conn zkapi.Conn, _ zkapi.Stat) (int64, bool) {
	return conn.Session().ID, true
}
