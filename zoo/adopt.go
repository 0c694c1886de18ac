package zoo

import (
	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/recipe"
)

// adoptDying is the queue lock whose lost-create lookup trusts the name:
// each contender creates "lock-<id>-<seq>", and after a create fails with
// connection loss it syncs, lists the directory and takes the node with
// its guid as the one the lost create made, whichever session owns it.
// Everything else is the good lock: numeric order, one watch on the
// predecessor, re-listing after every wake-up, cleanup through connection
// loss. It is the queue with its Owns step swapped.
//
// Origin: Curator's protected mode until CURATOR-498 was fixed in 2019
// (findProtectedNodeInForeground matched the "_c_<UUID>-" prefix only), and
// every lock that finds its lost node by a GUID in its name without
// looking at ephemeralOwner, such as go-zookeeper's
// CreateProtectedEphemeralSequential.
//
// Bug (docs/zk-semantics.md bug scenario 2): the client may have given up its
// session between the create and the lookup (a client-side session
// timeout, or a handle closed and reopened after a long disconnection,
// without the server hearing of it) and now runs on a new one, while the
// server still holds the old session and the node it created. The lookup
// adopts that node. When the old session expires the node goes; the
// adopter, which watches only its predecessor, goes on holding, and the
// next in line holds too. Only a client that abandons its session on its
// own shows it: a session the server has expired has no nodes left to
// adopt. Violation: mutual-exclusion.
func adoptDying() recipe.Lock { return queued(NameAdoptDying) }

// anyOwner is adoptDying's Owns step, and its defect: a node with the
// right guid is taken as the session's the client has now, whoever owns
// it.
func anyOwner(q queue.Queue, _, _ int64) (int64, bool) { return q.Conn.Session().ID, true }
