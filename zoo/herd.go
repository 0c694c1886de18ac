package zoo

import (
	"context"
	"errors"
	"path"
	"slices"

	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// dirWatch is the queue lock that watches the whole directory: each
// contender creates an ephemeral sequential node "lock-<id>-<seq>", lists
// the directory, and if it is not first waits for any change among the
// directory's children (getChildren with a watch) before listing again.
// It is otherwise the good lock (lost-create lookup, numeric order,
// cleanup on failure): the queue with its Watch step swapped.
//
// Origin: the first design of countless blog posts, and of Chinese-language
// articles ("sequential ephemeral nodes, watching the directory"). The
// ZooKeeper recipes page ("Locks") warns against it: each waiter should
// watch only the node just before its own, "to avoid the herd effect".
//
// Bug (docs/zk-semantics.md bug scenario 7): every waiter holds a child watch on
// the directory, so every release wakes every waiter, and they all list
// the directory again although only one can proceed; every newcomer wakes
// them too. Violation: herd.
func dirWatch() recipe.Lock { return queued(NameDirWatch) }

// herdShared is the shared (read/write) lock that watches the directory:
// readers create "read-<id>-<seq>", writers "write-<id>-<seq>"; a reader
// holds when no writer is ahead of it, a writer when it is first; a
// contender that does not hold waits for any change among the directory's
// children. It is otherwise rwlock's recipe: the queue with its Watch step
// swapped, as dirWatch.
//
// Origin: the shared lock of Chinese-language ZooKeeper articles and books
// (nodes "/shared_lock/<host>-R-<seq>" and "-W-", every client watching
// /shared_lock with getChildren). The ZooKeeper recipes page's shared lock
// has each waiter watch one node instead, and notes that waking all the
// readers a writer's release makes grantable is not a herd.
//
// Bug (docs/zk-semantics.md bug scenario 7): a writer's release wakes every
// waiter, also the writers and the readers queued behind the next writer,
// none of whom can proceed. Violation: herd.
func herdShared() recipe.Lock { return queued(NameHerdShared) }

// watchDir is the Watch step of dirWatch and herdShared, and their
// defect: it waits for any change among the directory's children, where
// the good step watches the one node p. Like the good step it returns at
// once if p is gone by now.
func watchDir(ctx context.Context, h *queue.Hold, p string, _ bool) (queue.Wake, error) {
	kids, _, w, err := h.Q.Conn.ChildrenW(ctx, h.Q.Dir)
	switch {
	case errors.Is(err, zkapi.ErrNoNode), errors.Is(err, zkapi.ErrConnectionLoss):
		return queue.Changed, nil
	case err != nil:
		return queue.Changed, err
	case !slices.Contains(kids, path.Base(p)):
		return queue.Changed, nil
	}
	_, err = h.WaitWatch(ctx, w)
	return queue.Changed, err
}

// singleNode is the lock on one fixed node: every contender tries to
// create the ephemeral node "<dir>/lock"; on NodeExists it lists the
// directory with a child watch and tries again after any change. A create
// whose reply was lost is recognised by the node's ephemeralOwner and
// data, and a holder deletes only its own node.
//
// It is not a variant of the queue: there is no queue, so it carries its
// own create loop (and creates a missing directory with persistent
// nodes, as these designs did before containers); its Held is a
// queue.Hold, released as the good lock releases.
//
// Origin: the "/exclusive_lock/lock" exclusive lock of Chinese-language
// ZooKeeper articles and books (the "non-fair exclusive lock": uniqueness
// of a node name, losers watching /exclusive_lock's children).
//
// Bug (docs/zk-semantics.md bug scenario 7): every loser watches the directory,
// so each release wakes all of them to race on create; there is no queue,
// hence no fairness either. Violation: herd.
//
// A second weakness is inherent in a name that is not unique per holder:
// a client that silently opens a new session after expiry (as
// go-zookeeper's and fakezk's Conns do) sends Release's delete under the
// new session if the expiry falls between Release's session check and
// the delete, and so deletes the next holder's node. A harness may find
// that window as a mutual-exclusion violation.
func singleNode() recipe.Lock {
	return recipe.Lock{Name: NameSingleNode, Acquire: singleNodeAcquire}
}

func singleNodeAcquire(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error) {
	if err := checkArgs(dir, id); err != nil {
		return nil, err
	}
	h, err := singleNodeLoop(ctx, conn, dir, []byte(id))
	if err != nil {
		return nil, wrap(NameSingleNode, dir, err)
	}
	return held{h}, nil
}

func singleNodeLoop(ctx context.Context, conn zkapi.Conn, dir string, data []byte) (*queue.Hold, error) {
	p := dir + "/lock"
	for {
		if err := ctx.Err(); err != nil {
			return nil, errors.Join(err, dropIfMine(ctx, conn, p, data))
		}
		sid := conn.Session().ID
		_, err := conn.Create(ctx, p, data, zkapi.Ephemeral)
		switch {
		case err == nil:
			return created(ctx, conn, p, sid), nil
		case errors.Is(err, zkapi.ErrNoNode):
			err = ensurePersistentDir(ctx, conn, dir)
		case isLoss(err), errors.Is(err, zkapi.ErrNodeExists):
			var h *queue.Hold
			if h, err = waitSingle(ctx, conn, dir, data); h != nil {
				return h, nil
			}
		}
		if isLoss(err) {
			err = queue.AwaitLink(ctx, conn)
		}
		if err != nil {
			return nil, errors.Join(err, dropIfMine(ctx, conn, p, data))
		}
	}
}

// waitSingle runs after a create that failed or may have been applied: if
// the node is this client's it holds; otherwise it waits for any change
// in the directory (the herd).
func waitSingle(ctx context.Context, conn zkapi.Conn, dir string, data []byte) (*queue.Hold, error) {
	p := dir + "/lock"
	if h, err := mine(ctx, conn, p, data); h != nil || err != nil {
		return h, err
	}
	kids, _, w, err := conn.ChildrenW(ctx, dir)
	if errors.Is(err, zkapi.ErrNoNode) {
		return nil, nil // the directory went too: create it again
	}
	if err != nil || !slices.Contains(kids, "lock") {
		return nil, err
	}
	_, err = w.Wait(ctx)
	return nil, err
}

// created returns the node a successful create made at p. sid is the
// session before the create; if the Conn has moved to a new session since
// (a client that renews an expired session sends a request queued during
// the outage under the new one), the node's ephemeralOwner decides whose
// it is, read even if ctx has ended: a node attributed to a dead session
// would never be removed. A node already gone belonged to the dead one.
func created(ctx context.Context, conn zkapi.Conn, p string, sid int64) *queue.Hold {
	bg := context.WithoutCancel(ctx)
	for conn.Session().ID != sid {
		st, ok, err := conn.Exists(bg, p)
		if isLoss(err) && queue.AwaitLink(bg, conn) == nil {
			continue
		}
		if err == nil && ok {
			sid = st.EphemeralOwner
		}
		break
	}
	return &queue.Hold{Q: queue.Queue{Conn: conn, Dir: path.Dir(p)}, Path: p, SID: sid}
}

// mine returns the node at p if the session current after reading it owns
// it with data.
func mine(ctx context.Context, conn zkapi.Conn, p string, data []byte) (*queue.Hold, error) {
	got, st, err := conn.Get(ctx, p)
	if errors.Is(err, zkapi.ErrNoNode) {
		return nil, nil
	}
	if err != nil || st.EphemeralOwner != conn.Session().ID || string(got) != string(data) {
		return nil, err
	}
	return &queue.Hold{Q: queue.Queue{Conn: conn, Dir: path.Dir(p)}, Path: p, SID: st.EphemeralOwner}, nil
}

// dropIfMine deletes the node at p if a create of this attempt made it,
// so that giving up leaves nothing behind.
func dropIfMine(ctx context.Context, conn zkapi.Conn, p string, data []byte) error {
	bg := context.WithoutCancel(ctx)
	for {
		h, err := mine(bg, conn, p, data)
		if isLoss(err) {
			if err := queue.AwaitLink(bg, conn); err != nil {
				return err
			}
			continue
		}
		if h == nil || err != nil {
			return err
		}
		return h.Q.Leave(bg, h.Path, h.SID)
	}
}

// ensurePersistentDir creates dir and its ancestors as persistent nodes,
// as the classic recipes did before container nodes existed.
func ensurePersistentDir(ctx context.Context, conn zkapi.Conn, dir string) error {
	for i := 1; i <= len(dir); i++ {
		if i < len(dir) && dir[i] != '/' {
			continue
		}
		_, err := conn.Create(ctx, dir[:i], nil, zkapi.Persistent)
		if err != nil && !errors.Is(err, zkapi.ErrNodeExists) && !isLoss(err) {
			return err
		}
	}
	return nil
}

func isLoss(err error) bool { return errors.Is(err, zkapi.ErrConnectionLoss) }
