package zoo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/zkapi"
)

// The helpers in this file are the correct parts the recipes share, so
// that each recipe carries exactly its own defect: create with a lost-reply
// lookup, delete through connection loss, the predecessor wait, and
// sequence parsing. None of them is a defect of any exhibit.

// seqWidth is the width of ZooKeeper's sequence suffix, %010d.
const seqWidth = 10

// checkArgs refuses lock paths and holder ids the recipes cannot use, by
// the good lock's rules: an id is a guid part of its queue, and lock.New
// (which does not touch the Conn) judges the path.
func checkArgs(dir, id string) error {
	if !queue.ValidGUIDPart(id) {
		return fmt.Errorf("%w: holder id %q may hold only letters, digits, '.' and '_'", lock.ErrConfig, id)
	}
	_, err := lock.New(nil, dir, lock.Options{ID: id})
	return err
}

// seqOf returns the sequence number ZooKeeper appended to name: its last
// ten characters, digits or a sign and nine digits (a wrapped counter).
func seqOf(name string) (int64, bool) {
	if len(name) < seqWidth {
		return 0, false
	}
	s := name[len(name)-seqWidth:]
	var n int64
	for i, c := range s {
		switch {
		case c >= '0' && c <= '9':
			n = n*10 + int64(c-'0')
		case c != '-' || i != 0:
			return 0, false
		}
	}
	if s[0] == '-' {
		n = -n
	}
	return n, true
}

// bySeq orders the children whose names start with one of prefixes and
// end in a sequence number by that number, ignoring other names: the
// ordering the ZooKeeper recipes page prescribes.
func bySeq(prefixes ...string) func(kids []string) []string {
	return func(kids []string) []string {
		var ms []string
		for _, k := range kids {
			if _, ok := seqOf(k); ok && hasAnyPrefix(k, prefixes) {
				ms = append(ms, k)
			}
		}
		sort.Slice(ms, func(i, j int) bool {
			si, _ := seqOf(ms[i])
			sj, _ := seqOf(ms[j])
			return si < sj || si == sj && ms[i] < ms[j]
		})
		return ms
	}
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func isLoss(err error) bool { return errors.Is(err, zkapi.ErrConnectionLoss) }

// awaitConnected returns at once if the session is connected (or gone for
// good: the caller's next check sees that), and otherwise waits for its
// next change, so that retries after a connection loss do not spin while
// the client is cut off.
func awaitConnected(ctx context.Context, conn zkapi.Conn) error {
	s := conn.Session()
	switch s.State {
	case zkapi.StateConnected, zkapi.StateExpired, zkapi.StateClosed:
		return nil
	}
	_, err := conn.WaitSession(ctx, s.Seq)
	return err
}

// ensureDir creates dir and its ancestors as persistent nodes, as the
// classic recipes did before container nodes existed.
func ensureDir(ctx context.Context, conn zkapi.Conn, dir string) error {
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

// node is a lock node the caller owns, and the lock.Held of the recipes
// that release by deleting their own node.
type node struct {
	conn     zkapi.Conn
	path     string
	sid      int64 // the session that owns the node
	released atomic.Bool
}

func (n *node) name() string { return n.path[strings.LastIndexByte(n.path, '/')+1:] }

// live reports why waiting must stop: ctx ended or the session is gone.
func (n *node) live(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return n.stillOwned()
}

// index finds the node in an ordered listing and refuses a sequence
// number past which ZooKeeper repeats or wraps numbers.
func (n *node) index(ordered []string) (int, error) {
	name := n.name()
	if seq, _ := seqOf(name); seq >= math.MaxInt32 || seq < 0 {
		return 0, fmt.Errorf("%w: %s", lock.ErrSequenceOverflow, n.path)
	}
	for i, m := range ordered {
		if m == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%w: %s vanished while waiting", lock.ErrLost, n.path)
}

// place returns the node's predecessor in an ordered listing, or first.
func (n *node) place(ordered []string) (pred string, first bool, err error) {
	i, err := n.index(ordered)
	if err != nil || i == 0 {
		return "", err == nil, err
	}
	return ordered[i-1], false, nil
}

// leave deletes the node, retrying through connection loss until it is
// gone or its session has ended (taking the node along). It ignores ctx's
// end: an abandoned node would block everyone queued behind it.
func (n *node) leave(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	for {
		if n.conn.Session().Lost(n.sid) {
			return nil
		}
		err := n.conn.Delete(ctx, n.path, zkapi.AnyVersion)
		switch {
		case err == nil, errors.Is(err, zkapi.ErrNoNode), errors.Is(err, zkapi.ErrSessionExpired),
			errors.Is(err, zkapi.ErrClosed):
			return nil
		case !isLoss(err):
			return err
		}
		if err := awaitConnected(ctx, n.conn); err != nil {
			return err
		}
	}
}

// Release deletes the node; it reports lock.ErrLost if the session ended
// while the lock was held. A second Release does nothing.
func (n *node) Release(ctx context.Context) error {
	if n.released.Swap(true) {
		return nil
	}
	lost := n.live(context.WithoutCancel(ctx))
	if err := n.leave(ctx); err != nil {
		return err
	}
	return lost
}

// createFunc makes the caller's ephemeral sequential node dir/prefix<seq>
// holding data.
type createFunc func(ctx context.Context, conn zkapi.Conn, dir, prefix string, data []byte) (*node, error)

// join is the correct createFunc. After a connection loss it looks for a
// node it made under the current session before creating again, so a
// create whose reply was lost leaves no orphan (ZOOKEEPER-1262,
// CURATOR-498).
func join(ctx context.Context, conn zkapi.Conn, dir, prefix string, data []byte) (*node, error) {
	return createLoop(ctx, conn, dir, prefix, data, func(ctx context.Context) (*node, error) {
		return findOwn(ctx, conn, dir, prefix, data)
	})
}

// createLoop creates dir/prefix<seq> until a create succeeds, creating a
// missing directory. After a connection loss, afterLoss either finds the
// node the lost create made or, returning neither node nor error, has the
// loop create again.
func createLoop(ctx context.Context, conn zkapi.Conn, dir, prefix string, data []byte,
	afterLoss func(ctx context.Context) (*node, error)) (*node, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sid := conn.Session().ID
		p, err := conn.Create(ctx, dir+"/"+prefix, data, zkapi.EphemeralSequential)
		switch {
		case err == nil:
			return created(ctx, conn, p, sid), nil
		case errors.Is(err, zkapi.ErrNoNode):
			err = ensureDir(ctx, conn, dir)
		case isLoss(err):
			var n *node
			if n, err = afterLoss(ctx); n != nil {
				return n, nil
			}
		}
		if err != nil {
			return nil, err
		}
	}
}

// created returns the node a successful create made at p. sid is the
// session before the create; if the Conn has moved to a new session since
// (a client that renews an expired session sends a request queued during
// the outage under the new one), the node's ephemeralOwner decides whose
// it is, read even if ctx has ended: a node attributed to a dead session
// would never be removed. A node already gone belonged to the dead one.
func created(ctx context.Context, conn zkapi.Conn, p string, sid int64) *node {
	bg := context.WithoutCancel(ctx)
	for conn.Session().ID != sid {
		st, ok, err := conn.Exists(bg, p)
		if isLoss(err) {
			if awaitConnected(bg, conn) == nil {
				continue
			}
		}
		if err == nil && ok {
			sid = st.EphemeralOwner
		}
		break
	}
	return &node{conn: conn, path: p, sid: sid}
}

// findOwn looks for a node named prefix<seq> holding data and owned by the
// current session. It runs to the end even if ctx is done, and then
// deletes what it found: the lost create must not leave an orphan.
func findOwn(ctx context.Context, conn zkapi.Conn, dir, prefix string, data []byte) (*node, error) {
	return findNode(ctx, conn, dir, prefix, data, ownedNow)
}

// ownerCheck says whether a node whose Stat is st, found by findNode, is
// the caller's, and which session owns it as far as the caller knows.
type ownerCheck func(conn zkapi.Conn, st zkapi.Stat) (sid int64, mine bool)

// ownedNow is the correct ownerCheck: a node is this client's if the
// session current after reading it owns it (a node of an earlier, dying
// session is not: CURATOR-498).
func ownedNow(conn zkapi.Conn, st zkapi.Stat) (int64, bool) {
	sid := conn.Session().ID
	return sid, st.EphemeralOwner == sid
}

// findNode is findOwn with the ownership test mine.
func findNode(ctx context.Context, conn zkapi.Conn, dir, prefix string, data []byte, mine ownerCheck) (*node, error) {
	bg := context.WithoutCancel(ctx)
	for {
		n, err := lookOnce(bg, conn, dir, prefix, data, mine)
		if isLoss(err) {
			if err := awaitConnected(bg, conn); err != nil {
				return nil, err
			}
			continue
		}
		if n != nil && ctx.Err() != nil {
			return nil, errors.Join(ctx.Err(), n.leave(bg))
		}
		return n, err
	}
}

// lookOnce is one pass of findNode. It syncs first: after a lost reply the
// client may have reconnected to a server that has not applied the create.
func lookOnce(ctx context.Context, conn zkapi.Conn, dir, prefix string, data []byte, mine ownerCheck) (*node, error) {
	if err := conn.Sync(ctx, dir); err != nil {
		return nil, err
	}
	kids, _, err := conn.Children(ctx, dir)
	if errors.Is(err, zkapi.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sort.Strings(kids)
	for _, k := range kids {
		if _, ok := seqOf(k); !ok || !strings.HasPrefix(k, prefix) || len(k) != len(prefix)+seqWidth {
			continue
		}
		got, st, err := conn.Get(ctx, dir+"/"+k)
		if errors.Is(err, zkapi.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(got, data) {
			continue
		}
		if sid, ok := mine(conn, st); ok {
			return &node{conn: conn, path: dir + "/" + k, sid: sid}, nil
		}
	}
	return nil, nil
}

// waitFirst waits until n is first in the queue that order makes of the
// directory's children, watching only its predecessor and listing again
// after every wake-up: the recipes page's lock, done right.
func waitFirst(ctx context.Context, n *node, dir string, order func([]string) []string) error {
	return waitPredecessor(ctx, n, dir, order, func(ctx context.Context, n *node, pred string) (bool, error) {
		return false, watchGone(ctx, n.conn, pred)
	})
}

// predecessorWatch waits on the predecessor at pred and says whether n
// now holds.
type predecessorWatch func(ctx context.Context, n *node, pred string) (held bool, err error)

// waitPredecessor lists the queue until n is first; otherwise it hands the
// predecessor's path to watch, which says whether n now holds. The right
// answer is never: only a fresh listing says so (waitFirst); the recipes
// that answer otherwise carry their defect in watch.
func waitPredecessor(ctx context.Context, n *node, dir string, order func([]string) []string, watch predecessorWatch) error {
	for {
		kids, _, err := n.list(ctx, dir, false)
		if err != nil {
			return err
		}
		pred, first, err := n.place(order(kids))
		if err != nil {
			return err
		}
		if first {
			return n.stillOwned()
		}
		if held, err := watch(ctx, n, dir+"/"+pred); held || err != nil {
			return err
		}
	}
}

// stillOwned reports lock.ErrLost if n's session is gone by now. A listing
// that shows n first may have been sent under a session that replaced n's
// while it was on its way (the client gave its session up, or learnt it
// had expired, and a follower still lists the node): n is then held by a
// session the client no longer has, and will go when that session ends.
func (n *node) stillOwned() error {
	if s := n.conn.Session(); s.Lost(n.sid) {
		return fmt.Errorf("%w: session %#x of %s ended (%v)", lock.ErrLost, n.sid, n.path, s)
	}
	return nil
}

// list lists dir, with a child watch if watch is set, while n is live,
// retrying through connection loss.
func (n *node) list(ctx context.Context, dir string, watch bool) (kids []string, w zkapi.Watch, err error) {
	for {
		if err := n.live(ctx); err != nil {
			return nil, nil, err
		}
		if watch {
			kids, _, w, err = n.conn.ChildrenW(ctx, dir)
		} else {
			kids, _, err = n.conn.Children(ctx, dir)
		}
		if !isLoss(err) {
			return kids, w, err
		}
		if err := awaitConnected(ctx, n.conn); err != nil {
			return nil, nil, err
		}
	}
}

// watchGone returns when the node at p changes, or at once if it is gone;
// a data watch, so a node already gone leaves no watch behind.
func watchGone(ctx context.Context, conn zkapi.Conn, p string) error {
	_, _, w, err := conn.GetW(ctx, p)
	switch {
	case errors.Is(err, zkapi.ErrNoNode):
		return nil
	case isLoss(err):
		return awaitConnected(ctx, conn)
	case err != nil:
		return err
	}
	_, err = w.Wait(ctx)
	return err
}

// waitFunc waits in the queue until n holds the lock.
type waitFunc func(ctx context.Context, n *node, dir string) error

// holdFunc waits in the queue and returns what n's holder releases.
type holdFunc func(ctx context.Context, n *node, dir string) (lock.Held, error)

// queueRecipe is the shape of the queue recipes: check the arguments,
// make a node named prefix(id)+seq holding id with create, and hold.
func queueRecipe(name string, prefix func(id string) string, create createFunc, hold holdFunc) lock.AcquireFunc {
	return func(ctx context.Context, conn zkapi.Conn, dir, id string) (lock.Held, error) {
		if err := checkArgs(dir, id); err != nil {
			return nil, err
		}
		n, err := create(ctx, conn, dir, prefix(id), []byte(id))
		if err != nil {
			return nil, wrap(name, dir, err)
		}
		return hold(ctx, n, dir)
	}
}

// exclusive is the queue lock whose nodes are "lock-<id>-<seq>", joined
// correctly, that waits in the queue with wait.
func exclusive(name string, wait waitFunc) lock.Recipe {
	return lock.Recipe{Name: name, Acquire: queued(name, lockPrefix, wait)}
}

// queued is the queue lock that joins correctly and waits with wait.
func queued(name string, prefix func(id string) string, wait waitFunc) lock.AcquireFunc {
	return queueRecipe(name, prefix, join, leaveOnFailure(name, wait))
}

// leaveOnFailure is the correct end of the queue recipes: wait, and on
// any failure leave the queue.
func leaveOnFailure(name string, wait waitFunc) holdFunc {
	return func(ctx context.Context, n *node, dir string) (lock.Held, error) {
		if err := wait(ctx, n, dir); err != nil {
			return nil, wrap(name, dir, errors.Join(err, n.leave(ctx)))
		}
		return n, nil
	}
}

// waitLockFirst waits, correctly, until n is the first "lock-" node by
// sequence number.
func waitLockFirst(ctx context.Context, n *node, dir string) error {
	return waitFirst(ctx, n, dir, bySeq("lock-"))
}

// wrap names the recipe and the lock in an error.
func wrap(name, dir string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s %s: %w", name, dir, err)
}

// lockPrefix names an exclusive contender's node: "lock-<id>-<seq>".
func lockPrefix(id string) string { return "lock-" + id + "-" }
