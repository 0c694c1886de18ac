package barrier

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/zkapi"
)

// kind is the name prefix of member nodes: "member-<guid>-<seq>".
const kind = "member"

// DoubleBarrier is a handle on the double barrier of size n at one
// directory.
type DoubleBarrier struct {
	q    queue.Queue
	n    int
	opts Options

	attempts queue.Attempts
}

// NewDouble returns a handle on the double barrier of n members whose
// nodes live under dir (created on first use, as a container). Every
// client of one barrier must pass the same n.
func NewDouble(conn zkapi.Conn, dir string, n int, opts Options) (*DoubleBarrier, error) {
	if err := checkPath(dir); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, fmt.Errorf("%w: size %d, want at least 1", errConfig, n)
	}
	opts, err := opts.validate()
	if err != nil {
		return nil, err
	}
	return &DoubleBarrier{q: queue.Queue{Conn: conn, Dir: dir}, n: n, opts: opts}, nil
}

// ID is the member id used in node names.
func (d *DoubleBarrier) ID() string { return d.opts.ID }

// round is the range of sequence numbers of one round's members, as a
// mark stores it: "<first> <last>", and the zxid of the mark. A node
// created after the mark is not a member, whatever its number: once the
// directory is empty the server may reap it (a container), and the one
// created next numbers its members from 0 again, while members of the
// last round may still be waiting to leave.
type round struct {
	first, last int64
	formed      int64
}

func (r round) String() string { return fmt.Sprintf("%d %d", r.first, r.last) }

func (r round) has(seq int64) bool { return seq >= r.first && seq <= r.last }

func parseRound(data []byte) (round, bool) {
	a, b, ok := strings.Cut(string(data), " ")
	if !ok {
		return round{}, false
	}
	first, err1 := strconv.ParseInt(a, 10, 64)
	last, err2 := strconv.ParseInt(b, 10, 64)
	return round{first: first, last: last}, err1 == nil && err2 == nil && first <= last
}

// Enter joins the barrier and returns once n members, this one among
// them, have arrived, or ctx ends. On any failure its node is removed
// (through connection loss) before it returns. A member whose session is
// lost before its round formed is not counted: Enter returns
// recipe.ErrLost.
func (d *DoubleBarrier) Enter(ctx context.Context) (*Member, error) {
	guid := d.attempts.Next(d.opts.ID)
	path, sid, err := d.q.Join(ctx, queue.Request{Kind: kind, GUID: guid, Steps: queue.Steps{FindLost: findOrClear}})
	if err != nil {
		return nil, d.errorf("enter", err)
	}
	m := &Member{d: d, path: path, sid: sid}
	r, err := m.awaitRound(ctx)
	if err != nil {
		if lerr := d.q.Leave(ctx, path, sid); lerr != nil {
			err = errors.Join(err, lerr)
		}
		return nil, d.errorf("enter", err)
	}
	m.round = r
	return m, nil
}

func (d *DoubleBarrier) errorf(op string, err error) error {
	if errors.Is(err, queue.ErrSessionLost) && !errors.Is(err, errLost) {
		err = fmt.Errorf("%w: %v", errLost, err)
	}
	return fmt.Errorf("barrier %s: %s: %w", d.q.Dir, op, err)
}

// Member is one member inside a double barrier: Enter returned it.
type Member struct {
	d     *DoubleBarrier
	path  string
	sid   int64
	round round

	mu   sync.Mutex
	left bool

	strangers map[string]bool // nodes in the round's range created after its mark
}

// Node is the path of the member's node.
func (m *Member) Node() string { return m.path }

// Session is the id of the session that owns the member's node.
func (m *Member) Session() int64 { return m.sid }

// Round returns the sequence numbers of the first and last member of the
// member's round: the n members that entered together. Later rounds have
// higher numbers, so the last one serves as a round (epoch) number.
func (m *Member) Round() (first, last int64) { return m.round.first, m.round.last }

// Check reports without blocking whether the member is still inside:
// nil, recipe.ErrLost (its session ended) or recipe.ErrReleased (it
// left).
func (m *Member) Check() error {
	m.mu.Lock()
	left := m.left
	m.mu.Unlock()
	if left {
		return errLeft
	}
	if s := m.d.q.Conn.Session(); s.Lost(m.sid) {
		return fmt.Errorf("%w (%v)", errLost, s)
	}
	return nil
}

// lost says whether the member's session is gone.
func (m *Member) lost() error {
	if s := m.d.q.Conn.Session(); s.Lost(m.sid) {
		return fmt.Errorf("%w (%v)", errLost, s)
	}
	return nil
}
