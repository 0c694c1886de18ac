// Package queue is the mechanism shared by zksim's lock recipes: a FIFO
// queue of ephemeral sequential nodes under one directory.
//
// A member's node is named "<kind>-<guid>-<sequence>". The guid is unique
// per attempt, so after a create whose reply was lost the member can find
// its node again, and it accepts the node only if the node's ephemeralOwner
// is its current session (a node of an earlier, dying session is not its
// own: CURATOR-498). Members are ordered by the numeric sequence, never by
// name, and names of other shapes are ignored. Removing a member's node
// survives connection loss: it retries until the node is gone or the
// session that owned it has ended.
//
// The recipe's replaceable steps are the fields of Steps; the zero Steps
// is the correct recipe, and package zoo's broken locks are this queue with
// one step replaced.
package queue

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// Errors reported by the queue: package recipe's sentinels, which a user
// compares with, under the names the queue's code reads best with.
var (
	// ErrSequenceOverflow: the directory's sequence counter reached 2^31-1,
	// after which ZooKeeper repeats or wraps numbers and FIFO order is lost.
	ErrSequenceOverflow = recipe.ErrSequenceOverflow
	// ErrDuplicateSequence: two members carry the same sequence number.
	ErrDuplicateSequence = recipe.ErrDuplicateSequence
	// ErrSessionLost: the session that owned the member's node ended.
	ErrSessionLost = recipe.ErrLost
)

// Member is one parsed node of the queue. Its kind and guid are parts of
// its name, kept as their ends rather than as strings of their own: a
// Member is half the size, and every listing copies and sorts them.
type Member struct {
	Name string
	Seq  int64
	// kindEnd and guidEnd end the kind (Name[:kindEnd]) and the guid
	// (Name[kindEnd+1:guidEnd]).
	kindEnd, guidEnd int32
}

// Kind is the member's kind, the name up to its first '-'.
func (m Member) Kind() string { return m.Name[:m.kindEnd] }

// GUID is the member's guid, the name between its first two '-'.
func (m Member) GUID() string { return m.Name[m.kindEnd+1 : m.guidEnd] }

// Queue is a directory of member nodes.
type Queue struct {
	Conn zkapi.Conn
	Dir  string
	// ContainerParent makes Dir's parent a container too when Join
	// creates it (package semaphore's directory, over its queue and
	// leases): the reaper then removes both once they are empty.
	ContainerParent bool
}

// Path returns the full path of a member name.
func (q Queue) Path(name string) string { return q.Dir + "/" + name }

// Join creates the member's node for r and returns its path and the
// session that owns it. On connection loss it asks r.Steps.FindLost for
// the node the create may have made before creating again. A missing
// directory is created (as a container, with persistent parents), also
// when a container reaper removes it between the attempts.
func (q Queue) Join(ctx context.Context, r Request) (string, int64, error) {
	return q.join(ctx, &r)
}

// join is Join with r by reference: EnqueueInto's Request, not copied
// again.
func (q Queue) join(ctx context.Context, r *Request) (string, int64, error) {
	base := q.Dir + "/" + r.Kind + "-" + r.GUID + "-" // one concatenation, one allocation
	for {
		sid := q.Conn.Session().ID
		p, err := q.Conn.Create(ctx, base, r.Data, zkapi.EphemeralSequential)
		switch {
		case err == nil && q.Conn.Session().ID == sid:
			return p, sid, nil
		case err == nil:
			// The session changed under the create (go-zookeeper sends a
			// queued request on the session that replaced an expired one):
			// the node tells whose it is. The caller's ctx may end now
			// without losing track of the node.
			owner, err := q.owner(uncancelled(ctx), p, sid)
			return p, owner, err
		case errors.Is(err, zkapi.ErrNoNode):
			if err := q.ensureDir(ctx); err != nil {
				return "", 0, err
			}
		case errors.Is(err, zkapi.ErrConnectionLoss):
			// The create may have been applied: find it even if ctx has
			// ended meanwhile, so that the caller can remove it.
			p, sid, err := r.Steps.orDefault().FindLost(uncancelled(ctx), q, *r)
			if err != nil {
				return "", 0, err
			}
			if p != "" {
				return p, sid, nil
			}
		default:
			return "", 0, err
		}
		if err := ctx.Err(); err != nil {
			return "", 0, err
		}
	}
}

// owner reads the ephemeralOwner of the node at p, retrying through
// connection loss; a node already gone is reported as guess's.
func (q Queue) owner(ctx context.Context, p string, guess int64) (int64, error) {
	for {
		st, ok, err := q.Conn.Exists(ctx, p)
		switch {
		case err == nil && ok:
			return st.EphemeralOwner, nil
		case err == nil:
			return guess, nil
		case !errors.Is(err, zkapi.ErrConnectionLoss):
			return 0, err
		}
		if err := AwaitLink(ctx, q.Conn); err != nil {
			return 0, err
		}
	}
}

// findOwn looks for the node of r.GUID owned (as r.Steps.Owns judges) by
// the current session. It syncs first, since after a reconnect the server
// may lag behind the one that applied the create. Reads are retried
// through connection loss.
func findOwn(ctx context.Context, q Queue, r Request) (string, int64, error) {
	owns := r.Steps.orDefault().Owns
list:
	for {
		if err := ctx.Err(); err != nil {
			return "", 0, err
		}
		sid := q.Conn.Session().ID
		err := q.Conn.Sync(ctx, q.Dir)
		var kids []string
		if err == nil {
			kids, _, err = q.Conn.Children(ctx, q.Dir)
		}
		if errors.Is(err, zkapi.ErrConnectionLoss) {
			if err := AwaitLink(ctx, q.Conn); err != nil {
				return "", 0, err
			}
			continue
		}
		if errors.Is(err, zkapi.ErrNoNode) {
			return "", 0, nil
		}
		if err != nil {
			return "", 0, err
		}
		sort.Strings(kids)
		for _, k := range kids {
			if m, ok := parse(k); !ok || m.Kind() != r.Kind || m.GUID() != r.GUID {
				continue
			}
			st, ok, err := q.Conn.Exists(ctx, q.Path(k))
			if errors.Is(err, zkapi.ErrConnectionLoss) {
				if err := AwaitLink(ctx, q.Conn); err != nil {
					return "", 0, err
				}
				continue list
			}
			if err != nil {
				return "", 0, err
			}
			if !ok {
				continue
			}
			if holder, mine := owns(q, st.EphemeralOwner, sid); mine {
				return q.Path(k), holder, nil
			}
		}
		return "", 0, nil
	}
}

// AwaitLink returns at once if c is connected, and otherwise when its
// session state next changes: the pause before retrying a request that
// failed with connection loss, so that retries do not spin.
func AwaitLink(ctx context.Context, c zkapi.Conn) error {
	s := c.Session()
	if s.State == zkapi.StateConnected {
		return nil
	}
	_, err := c.WaitSession(ctx, s.Seq)
	return err
}

// ensureDir creates the directory as a container and its ancestors as
// persistent nodes; nodes that already exist are fine.
func (q Queue) ensureDir(ctx context.Context) error {
	// Each ancestor is a prefix of q.Dir, ending before one of its '/':
	// sliced rather than joined from the segments, it allocates nothing.
	for end := 1; end <= len(q.Dir); end++ {
		if end < len(q.Dir) && q.Dir[end] != '/' {
			continue
		}
		p := q.Dir[:end]
		mode := zkapi.Persistent
		if end == len(q.Dir) || (q.ContainerParent && !strings.Contains(q.Dir[end+1:], "/")) {
			mode = zkapi.Container
		}
		_, err := q.Conn.Create(ctx, p, nil, mode)
		if err != nil && !errors.Is(err, zkapi.ErrNodeExists) && !errors.Is(err, zkapi.ErrConnectionLoss) {
			return fmt.Errorf("create directory %s: %w", p, err)
		}
	}
	return nil
}

// List returns the members of the given kinds (all kinds if none given)
// by sequence number. Other names are ignored.
func (q Queue) List(ctx context.Context, kinds ...string) ([]Member, error) {
	return q.listInto(ctx, nil, kinds)
}

// listInto is List that reuses buf's array for the result: a waiter
// lists again on every wake-up, and keeps nothing of the last listing.
func (q Queue) listInto(ctx context.Context, buf []Member, kinds []string) ([]Member, error) {
	kids, _, err := q.Conn.Children(ctx, q.Dir)
	if err != nil {
		return buf[:0], err
	}
	return q.members(buf, kids, kinds)
}

// ListStat is List that also returns the directory's Stat, read with the
// listing: package semaphore's compare-and-set on the queue's version.
func (q Queue) ListStat(ctx context.Context, kinds ...string) ([]Member, zkapi.Stat, error) {
	kids, st, err := q.Conn.Children(ctx, q.Dir)
	if err != nil {
		return nil, st, err
	}
	ms, err := q.members(nil, kids, kinds)
	return ms, st, err
}

// members parses the names of kids of the given kinds (all if none) into
// buf's array and orders them by sequence number, refusing duplicate
// numbers.
func (q Queue) members(buf []Member, kids, kinds []string) ([]Member, error) {
	// Stored by index into room for every kid, not appended: the
	// append's growing path was code every listing's loop carried.
	ms := slices.Grow(buf[:0], len(kids))[:len(kids)]
	n := 0
	for _, k := range kids {
		m, ok := parse(k)
		if ok && (len(kinds) == 0 || slices.Contains(kinds, m.Kind())) {
			ms[n] = m
			n++
		}
	}
	ms = ms[:n]
	sortBySeq(ms)
	for i := 1; i < len(ms); i++ {
		if ms[i].Seq == ms[i-1].Seq {
			return ms, duplicate(ms[i-1].Name, ms[i].Name, q.Dir)
		}
	}
	return ms, nil
}

// duplicate is members' error for the members named a and b, which
// share a sequence number: made out of line, as it is rare and every
// listing runs members.
//
//go:noinline
func duplicate(a, b, dir string) error {
	return fmt.Errorf("%w: %s and %s in %s", ErrDuplicateSequence, a, b, dir)
}

// sortBySeq sorts ms in bySeq's order: by insertion, calling bySeq
// directly, for the few members a lock's queue holds (every listing
// sorts them), and by slices.SortFunc beyond. bySeq is a total order on
// the members of one listing, whose names differ, so both give one order.
func sortBySeq(ms []Member) {
	if len(ms) > 12 {
		slices.SortFunc(ms, bySeq)
		return
	}
	for i := 1; i < len(ms); i++ {
		m, j := ms[i], i
		for ; j > 0 && bySeq(m, ms[j-1]) < 0; j-- {
			ms[j] = ms[j-1]
		}
		ms[j] = m
	}
}

// CheckSeq refuses a member whose sequence number is at or past 2^31-1:
// from there on ZooKeeper hands out repeated (3.6+) or wrapped numbers.
func CheckSeq(m Member, dir string) error {
	if m.Seq >= math.MaxInt32 || m.Seq < 0 {
		return overflow(dir, m.Name)
	}
	return nil
}

// overflow is CheckSeq's error, made out of line: every wait checks.
//
//go:noinline
func overflow(dir, name string) error {
	return fmt.Errorf("%w: %s/%s", ErrSequenceOverflow, dir, name)
}

// Index returns the position of the member whose path is p, or -1.
func Index(ms []Member, dir, p string) int {
	if len(p) <= len(dir) || p[:len(dir)] != dir || p[len(dir)] != '/' {
		return -1
	}
	name := p[len(dir)+1:]
	for i, m := range ms {
		if m.Name == name {
			return i
		}
	}
	return -1
}

// Leave deletes the node at p, retrying through connection loss until the
// node is gone or the session sid that owned it has ended (taking the
// node with it). It does not give up when ctx ends: an abandoned node
// would block the queue for everyone behind it (CURATOR-202); the session
// timeout bounds the wait. If the Conn is closed while the link is down,
// it returns that error: the node then stays until its session expires.
func (q Queue) Leave(ctx context.Context, p string, sid int64) error {
	_, err := q.leave(ctx, p, sid)
	return err
}

// leave is Leave that also says whether the node was already gone: its
// session lost, the delete answered that the session had expired, or the
// node missing at the first try (after a delete lost on the way, missing
// may be that delete's doing).
func (q Queue) leave(ctx context.Context, p string, sid int64) (gone bool, err error) {
	ctx = uncancelled(ctx)
	for tried := false; ; tried = true {
		s := q.Conn.Session()
		if s.Lost(sid) {
			return true, nil
		}
		err := q.Conn.Delete(ctx, p, zkapi.AnyVersion)
		switch {
		case err == nil:
			return false, nil
		case errors.Is(err, zkapi.ErrNoNode):
			return !tried, nil
		case errors.Is(err, zkapi.ErrSessionExpired):
			return true, nil
		case errors.Is(err, zkapi.ErrClosed):
			return false, nil // closing the Conn closes the session and its nodes
		case !errors.Is(err, zkapi.ErrConnectionLoss):
			return false, fmt.Errorf("delete %s: %w", p, err)
		}
		if aerr := AwaitLink(ctx, q.Conn); aerr != nil {
			// The Conn closed while cut off (ctx cannot end here): the
			// session, and the node, linger until the server expires it.
			return false, fmt.Errorf("delete %s: %w", p, errors.Join(err, aerr))
		}
	}
}

// parse reads a member's name "<kind>-<guid>-<seq>": the kind up to the
// first '-', the guid (not empty) up to the next. Every listing parses
// every name: the dashes are found with IndexByte, which strings.Cut
// reaches only through its general search.
func parse(name string) (Member, bool) {
	i := strings.IndexByte(name, '-')
	if i < 0 {
		return Member{}, false
	}
	rest := name[i+1:]
	j := strings.IndexByte(rest, '-')
	if j <= 0 { // no second '-', or no guid
		return Member{}, false
	}
	seq, ok := parseSeq(rest[j+1:])
	if !ok {
		return Member{}, false
	}
	return Member{Name: name, Seq: seq, kindEnd: int32(i), guidEnd: int32(i + 1 + j)}, true
}

// parseSeq reads ZooKeeper's %010d of a sequence number: ten digits, or a
// sign and the digits of a wrapped counter; a number outside int32 is no
// sequence number. Every listing parses every name, so it checks and
// converts the last eight digits at once (eightDigits), the first one or
// two in a loop.
func parseSeq(s string) (int64, bool) {
	digits := strings.TrimPrefix(s, "-")
	if len(digits) < 9 || len(digits) > 10 || (len(s) != 10 && len(s) != 11) {
		return 0, false
	}
	var n int64
	head := len(digits) - 8
	for i := range head {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	low, ok := eightDigits(digits[head:])
	if !ok {
		return 0, false
	}
	n = n*1e8 + low
	if len(digits) < len(s) {
		n = -n
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		return 0, false
	}
	return n, true
}

// eightDigits reads the eight decimal digits of s (eight bytes long) as
// a number, all at once in a word whose lowest byte is the first digit.
// A byte is a digit when its high half is 3 and adding 6 leaves it 3
// (a byte that carries into the next fails itself). Then each pair of
// neighbours is joined as first*10+second, each pair of pairs as
// first*100+second, and the two halves as first*10000+second: each a
// multiplication that adds the shifted first to the scaled second.
func eightDigits(s string) (int64, bool) {
	_ = s[7]
	w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	const highHalves = 0xF0F0F0F0F0F0F0F0
	if w&highHalves|((w+0x0606060606060606)&highHalves)>>4 != 0x3333333333333333 {
		return 0, false
	}
	w = (w & 0x0F0F0F0F0F0F0F0F) * (10<<8 + 1) >> 8
	w = (w & 0x00FF00FF00FF00FF) * (100<<16 + 1) >> 16
	w = (w & 0x0000FFFF0000FFFF) * (10000<<32 + 1) >> 32
	return int64(w), true
}

// ValidGUIDPart reports whether s may appear in a guid: letters, digits,
// '.' and '_' (no '-', which separates the parts of a name).
func ValidGUIDPart(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_') {
			return false
		}
	}
	return true
}

// uncancelled is context.WithoutCancel(ctx), or ctx itself when it is
// context.Background(), which no cancel reaches anyway: a release leaves
// the queue on every acquisition, and the wrapper allocated.
func uncancelled(ctx context.Context) context.Context {
	if ctx == context.Background() {
		return ctx
	}
	return context.WithoutCancel(ctx)
}
