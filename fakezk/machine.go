package fakezk

import (
	"fmt"
	"sort"

	"github.com/zksim/zksim/zkapi"
)

// firstSessionID is where session ids start; real ids carry the server id
// in the top byte, so these look alike in traces without being equal.
const firstSessionID int64 = 0x100000000000000

// Machine is the in-memory ZooKeeper server: a pure, deterministic state
// machine. Its inputs are method calls (requests, ticks, faults); its
// outputs are replies and per-session queues of watch notifications. It
// is not safe for concurrent use: wrap it (as Server does) or drive it from
// one goroutine (as the simulator does).
type Machine struct {
	cfg      Config
	tree     map[string]*znode
	zxid     int64
	now      int64 // virtual milliseconds
	ticks    int64
	rng      rng
	sessions map[int64]*session
	nextID   int64

	// server-side watch tables: path -> watching sessions. Exists watches
	// on missing nodes live in dataW, as on the real server.
	dataW  map[string]map[int64]struct{}
	childW map[string]map[int64]struct{}

	undo  []func()  // non-nil while a multi is being applied
	fired []trigger // watch triggers of the request being applied
}

type session struct {
	id         int64
	timeout    int64 // negotiated, ms
	deadline   int64 // virtual ms after which the session expires if unheard
	attached   bool  // a live connection: the server hears (pings) from it
	ephemerals map[string]struct{}
	watches    map[watchKey]struct{}
	outbox     []Notification
}

// NewMachine returns a server holding only /, /zookeeper,
// /zookeeper/quota and /zookeeper/config.
func NewMachine(cfg Config) (*Machine, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Machine{
		cfg:      cfg,
		tree:     newTree(),
		rng:      rng{s: cfg.Seed},
		sessions: map[int64]*session{},
		nextID:   firstSessionID,
		dataW:    map[string]map[int64]struct{}{},
		childW:   map[string]map[int64]struct{}{},
	}, nil
}

// Config returns the configuration in force, defaults filled in.
func (m *Machine) Config() Config { return m.cfg }

// Zxid is the last zxid the server assigned.
func (m *Machine) Zxid() int64 { return m.zxid }

// Now is the virtual time in milliseconds.
func (m *Machine) Now() int64 { return m.now }

// SessionInfo describes an open session.
type SessionInfo struct {
	ID        int64
	TimeoutMs int64
}

// CreateSession opens a session (a createSession transaction) on an
// attached connection. The timeout is clamped to [2, 20] ticks.
func (m *Machine) CreateSession(timeoutMs int64) SessionInfo {
	lo, hi := 2*m.cfg.TickMillis, 20*m.cfg.TickMillis
	timeoutMs = max(lo, min(hi, timeoutMs))
	m.zxid++
	s := &session{
		id: m.nextID, timeout: timeoutMs, deadline: m.now + timeoutMs, attached: true,
		ephemerals: map[string]struct{}{}, watches: map[watchKey]struct{}{},
	}
	m.nextID++
	m.sessions[s.id] = s
	return SessionInfo{ID: s.id, TimeoutMs: timeoutMs}
}

// Alive reports whether the session exists (neither closed nor expired).
func (m *Machine) Alive(id int64) bool { return m.sessions[id] != nil }

// Attached reports whether the server has a live connection for the session.
func (m *Machine) Attached(id int64) bool {
	s := m.sessions[id]
	return s != nil && s.attached
}

// SessionIDs lists the live sessions in increasing order.
func (m *Machine) SessionIDs() []int64 {
	ids := make([]int64, 0, len(m.sessions))
	for id := range m.sessions {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// Detach drops the session's connection: the server forgets its watches
// and undelivered notifications and stops hearing pings, so the session
// expires after its timeout unless it is re-attached.
func (m *Machine) Detach(id int64) {
	s := m.sessions[id]
	if s == nil || !s.attached {
		return
	}
	s.attached = false
	s.outbox = nil
	m.dropWatches(s)
}

// Attach reconnects a client to its session. It fails with
// ErrSessionExpired if the session is gone. The client should follow with
// a SetWatches request for the watches it still holds.
func (m *Machine) Attach(id int64) error {
	s := m.sessions[id]
	if s == nil {
		return zkapi.ErrSessionExpired
	}
	s.attached = true
	s.deadline = m.now + s.timeout
	return nil
}

// CloseSession ends a session at the client's request (closeSession) and
// returns the session's last notifications: its connection is still open
// while the transaction deletes its ephemerals, so watches it set on them
// fire for it too, before the close is acknowledged.
func (m *Machine) CloseSession(id int64) []Notification {
	s := m.sessions[id]
	if s == nil {
		return nil
	}
	m.endSession(s)
	return s.outbox
}

// Expire ends a session as the server's session tracker does when the
// client has not been heard from for its timeout. Its connection, if any,
// is gone first, so it is told nothing.
func (m *Machine) Expire(id int64) {
	if s := m.sessions[id]; s != nil {
		m.Detach(id)
		m.endSession(s)
	}
}

// endSession is the closeSession transaction: one zxid, every ephemeral of
// the session deleted atomically (in path order, for determinism).
func (m *Machine) endSession(s *session) {
	m.zxid++
	paths := make([]string, 0, len(s.ephemerals))
	for p := range s.ephemerals {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		m.removeNode(p)
		m.fireDelete(p)
	}
	m.dispatch()
	m.dropWatches(s)
	delete(m.sessions, s.id)
}

// Tick advances virtual time by one tickTime. Attached sessions are kept
// alive (their clients ping); detached ones expire once their timeout has
// passed since the server last heard from them.
func (m *Machine) Tick() {
	m.now += m.cfg.TickMillis
	m.ticks++
	for _, id := range m.SessionIDs() {
		s := m.sessions[id]
		if s.attached {
			s.deadline = m.now + s.timeout
		} else if m.now >= s.deadline {
			m.Expire(id)
		}
	}
	if k := int64(m.cfg.ContainerCheckTicks); k > 0 && m.ticks%k == 0 {
		m.ReapContainers()
	}
}

// ReapContainers deletes every container node that has had children and
// has none now, each in its own transaction, as ContainerManager does.
func (m *Machine) ReapContainers() {
	paths := make([]string, 0)
	for p, n := range m.tree {
		if n.container && len(n.children) == 0 && n.cversion > 0 {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		m.zxid++
		m.removeNode(p)
		m.fireDelete(p)
		m.dispatch()
	}
}

// SetSequence sets the sequence counter of an existing node: its next
// sequential child gets n. Tests use it to reach 2^31-1.
func (m *Machine) SetSequence(path string, n int32) error {
	node := m.tree[path]
	if node == nil {
		return zkapi.Wrap("setsequence", path, zkapi.ErrNoNode)
	}
	node.cversion = n
	return nil
}

// Sequence returns a node's sequence counter (the stored cversion).
func (m *Machine) Sequence(path string) (int32, bool) {
	node := m.tree[path]
	if node == nil {
		return 0, false
	}
	return node.cversion, true
}

// TakeNotifications removes and returns the notifications queued for a
// session, oldest first.
func (m *Machine) TakeNotifications(id int64) []Notification {
	s := m.sessions[id]
	if s == nil || len(s.outbox) == 0 {
		return nil
	}
	out := s.outbox
	s.outbox = nil
	return out
}

// PendingNotifications reports how many notifications wait for a session.
func (m *Machine) PendingNotifications(id int64) int {
	if s := m.sessions[id]; s != nil {
		return len(s.outbox)
	}
	return 0
}

// Do applies one request from a session and returns the reply. Watch
// notifications it causes are queued on the sessions they are for, each
// before any later reply to that session.
func (m *Machine) Do(id int64, req Request) Reply {
	s := m.sessions[id]
	if s == nil {
		return Reply{Zxid: m.zxid, Err: zkapi.ErrSessionExpired}
	}
	if !s.attached {
		return Reply{Zxid: m.zxid, Err: zkapi.ErrConnectionLoss}
	}
	if FrameSize(req) > m.cfg.MaxFrame {
		// jute.maxbuffer: the server drops the connection unread.
		m.Detach(id)
		return Reply{Zxid: m.zxid, Err: zkapi.ErrConnectionLoss}
	}
	s.deadline = m.now + s.timeout
	r := m.apply(s, req)
	m.dispatch()
	return r
}

func (m *Machine) apply(s *session, req Request) Reply {
	switch r := req.(type) {
	case Create:
		m.zxid++
		return m.create(s, r)
	case Delete:
		m.zxid++
		return m.delete(r)
	case SetData:
		m.zxid++
		return m.setData(r)
	case Multi:
		m.zxid++
		return m.multi(s, r)
	case Exists:
		return m.exists(s, r)
	case GetData:
		return m.getData(s, r)
	case GetChildren:
		return m.getChildren(s, r)
	case SetWatches:
		m.setWatches(s, r)
		return Reply{Zxid: m.zxid}
	case Sync, Ping:
		return Reply{Zxid: m.zxid}
	}
	panic(fmt.Sprintf("fakezk: request type %T is not in the closed set", req))
}
