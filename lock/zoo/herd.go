package zoo

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/zkapi"
)

// DirWatch is the queue lock that watches the whole directory: each
// contender creates an ephemeral sequential node "lock-<id>-<seq>" and
// calls getChildren(dir, watch) until its node has the lowest sequence
// number. It is otherwise correct (lost-create lookup, numeric order,
// cleanup on failure).
//
// Origin: the first design of countless blog posts, and of Chinese-language
// articles ("sequential ephemeral nodes, watching the directory"). The
// ZooKeeper recipes page ("Locks") warns against it: each waiter should
// watch only the node just before its own, "to avoid the herd effect".
//
// Bug (ZK-SEMANTICS bug scenario 7): every waiter holds a child watch on
// the directory, so every release wakes every waiter, and they all list
// the directory again although only one can proceed; every newcomer wakes
// them too. The holder also keeps the child watch of its last listing.
// Violation: herd.
func DirWatch() lock.Recipe {
	return exclusive(NameDirWatch, func(ctx context.Context, n *node, dir string) error {
		return watchDir(ctx, n, dir, bySeq("lock-"), writerGranted)
	})
}

// watchDir is the herd: list the directory with a child watch, and if
// granted does not hold, wait for any change there and list again.
func watchDir(ctx context.Context, n *node, dir string, order func([]string) []string,
	granted func(ordered []string, i int) bool) error {
	for {
		kids, w, err := n.list(ctx, dir, true)
		if err != nil {
			return err
		}
		ordered := order(kids)
		i, err := n.index(ordered)
		if err != nil || granted(ordered, i) {
			return err
		}
		if _, err := w.Wait(ctx); err != nil {
			return err
		}
	}
}

// HerdShared is the shared (read/write) lock that watches the directory:
// readers create "read-<id>-<seq>", writers "write-<id>-<seq>"; every
// contender lists the directory with a child watch; a reader holds when
// no writer is ahead of it, a writer when it is first. It is otherwise
// correct.
//
// Origin: the shared lock of Chinese-language ZooKeeper articles and books
// (nodes "/shared_lock/<host>-R-<seq>" and "-W-", every client watching
// /shared_lock with getChildren). The ZooKeeper recipes page's shared lock
// has each waiter watch one node instead, and notes that waking all the
// readers a writer's release makes grantable is not a herd.
//
// Bug (ZK-SEMANTICS bug scenario 7): a writer's release wakes every
// waiter, also the writers and the readers queued behind the next writer,
// none of whom can proceed. Violation: herd.
func HerdShared() lock.Recipe {
	return lock.Recipe{Name: NameHerdShared, Acquire: herdShared(false), AcquireRead: herdShared(true)}
}

func herdShared(read bool) lock.AcquireFunc {
	kind, granted := "write", writerGranted
	if read {
		kind, granted = "read", readerGranted
	}
	return queued(NameHerdShared, func(id string) string { return kind + "-" + id + "-" }, func(ctx context.Context, n *node, dir string) error {
		return watchDir(ctx, n, dir, bySeq("read-", "write-"), granted)
	})
}

func writerGranted(_ []string, i int) bool { return i == 0 }

func readerGranted(ordered []string, i int) bool {
	return !slices.ContainsFunc(ordered[:i], func(m string) bool { return strings.HasPrefix(m, "write-") })
}

// SingleNode is the lock on one fixed node: every contender tries to
// create the ephemeral node "<dir>/lock"; on NodeExists it lists the
// directory with a child watch and tries again after any change. A create
// whose reply was lost is recognised by the node's ephemeralOwner and
// data, and a holder deletes only its own node.
//
// Origin: the "/exclusive_lock/lock" exclusive lock of Chinese-language
// ZooKeeper articles and books (the "non-fair exclusive lock": uniqueness
// of a node name, losers watching /exclusive_lock's children).
//
// Bug (ZK-SEMANTICS bug scenario 7): every loser watches the directory,
// so each release wakes all of them to race on create; there is no queue,
// hence no fairness either. Violation: herd.
//
// A second weakness is inherent in a name that is not unique per holder:
// a client that silently opens a new session after expiry (as
// go-zookeeper's and fakezk's Conns do) sends Release's delete under the
// new session if the expiry falls between Release's session check and
// the delete, and so deletes the next holder's node. A harness may find
// that window as a mutual-exclusion violation.
func SingleNode() lock.Recipe {
	return lock.Recipe{Name: NameSingleNode, Acquire: singleNode}
}

func singleNode(ctx context.Context, conn zkapi.Conn, dir, id string) (lock.Held, error) {
	if err := checkArgs(dir, id); err != nil {
		return nil, err
	}
	n, err := singleNodeLoop(ctx, conn, dir, []byte(id))
	if err != nil {
		return nil, wrap(NameSingleNode, dir, err)
	}
	return n, nil
}

func singleNodeLoop(ctx context.Context, conn zkapi.Conn, dir string, data []byte) (*node, error) {
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
			err = ensureDir(ctx, conn, dir)
		case isLoss(err), errors.Is(err, zkapi.ErrNodeExists):
			var n *node
			if n, err = waitSingle(ctx, conn, dir, data); n != nil {
				return n, nil
			}
		}
		if isLoss(err) {
			err = awaitConnected(ctx, conn)
		}
		if err != nil {
			return nil, errors.Join(err, dropIfMine(ctx, conn, p, data))
		}
	}
}

// waitSingle runs after a create that failed or may have been applied: if
// the node is this client's it holds; otherwise it waits for any change
// in the directory (the herd).
func waitSingle(ctx context.Context, conn zkapi.Conn, dir string, data []byte) (*node, error) {
	p := dir + "/lock"
	if n, err := mine(ctx, conn, p, data); n != nil || err != nil {
		return n, err
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

// mine returns the node at p if the session current after reading it owns
// it with data.
func mine(ctx context.Context, conn zkapi.Conn, p string, data []byte) (*node, error) {
	got, st, err := conn.Get(ctx, p)
	if errors.Is(err, zkapi.ErrNoNode) {
		return nil, nil
	}
	if err != nil || st.EphemeralOwner != conn.Session().ID || string(got) != string(data) {
		return nil, err
	}
	return &node{conn: conn, path: p, sid: st.EphemeralOwner}, nil
}

// dropIfMine deletes the node at p if a create of this attempt made it,
// so that giving up leaves nothing behind.
func dropIfMine(ctx context.Context, conn zkapi.Conn, p string, data []byte) error {
	bg := context.WithoutCancel(ctx)
	for {
		n, err := mine(bg, conn, p, data)
		if isLoss(err) {
			if err := awaitConnected(bg, conn); err != nil {
				return err
			}
			continue
		}
		if n == nil || err != nil {
			return err
		}
		return n.leave(bg)
	}
}
