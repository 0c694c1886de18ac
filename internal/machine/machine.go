package machine

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// firstSessionID is where session ids start; real ids carry the server id
// in the top byte, so these look alike in traces without being equal.
const firstSessionID int64 = 0x100000000000000

// Machine is the in-memory ZooKeeper ensemble: a pure, deterministic state
// machine. Its inputs are method calls (requests, ticks, faults); its
// outputs are replies and per-session queues of watch notifications. It
// is not safe for concurrent use: wrap it (as Server does) or drive it from
// one goroutine (as the simulator does).
//
// Replica 0 is the leader; Config.Followers more replicas replay the
// leader's transaction log when told to (CatchUp, Sync, a write of one of
// their sessions, or every Tick), so their sessions can read stale state.
type Machine struct {
	cfg      Config
	replicas []*replica
	log      []txn // committed transactions some follower has not applied
	zxid     int64
	now      int64 // virtual milliseconds
	ticks    int64
	rng      rng
	clock    func() int64 // see UseClock; nil: EpochMillis plus now
	sessions map[int64]*session
	byID     []*session // the same sessions in increasing id order: a Tick visits them all
	nextID   int64

	inMulti bool      // a multi is being applied: changes log their undo
	undo    []undoRec // the multi's changes so far, for rollback
	fired   []trigger // leader watch triggers of the request being applied
	caught  []trigger // CatchUp's triggers of one transaction, reused
	woken   []int64   // notifyOn's sessions of one trigger, reused
	spare   [][]int64 // emptied watcher lists, reused by watch

	watchCount int // the watches all sessions hold (HeldWatches)

	room machineRoom
	// The rooms of what a run makes many small ones of: listings
	// (getChildren), multi results, copies of written data, sessions.
	lists        slab[string]
	results      slab[zkapi.OpResult]
	data         slab[byte]
	sessionsRoom slab[sessionRoom]

	// notified lists the sessions whose outbox became non-empty since the
	// last TakeNotified, and ended counts the sessions ended so far: a
	// server over thousands of sessions visits only those with news.
	notified []int64
	ended    int64
	posts    uint64 // notifications queued so far (Posted)
	// detached counts the sessions without a connection: only those can
	// expire, and Due looks at the sessions only when there are some.
	detached int

	// reapers are the leader's container and TTL nodes, the only nodes
	// ReapContainers may delete: it looks at them, not the whole tree.
	reapers map[string]struct{}

	sasl bool // RegisterSASL

	// gen counts the calls that may have changed the Machine: every
	// exported method that can change anything a Fingerprint hashes
	// counts one first (one that finds nothing to do may return before).
	// fp is the last Fingerprint, taken at gen fpGen (fpOK: one was), so
	// that a search fingerprinting a state its last step did not change
	// (about one step in two in the exhaustive lock workload: a wake-up,
	// a reply delivered) hashes nothing.
	gen   uint64
	fp    uint64
	fpGen uint64
	fpOK  bool
}

// txn is one committed transaction in the log followers replay.
type txn struct {
	zxid  int64
	prims []prim
}

type session struct {
	id         int64
	replica    int   // the replica it is connected to
	timeout    int64 // negotiated, ms
	deadline   int64 // virtual ms after which the session expires if unheard
	attached   bool  // a live connection: the server hears (pings) from it
	ephemerals smallSet[string]
	peak       int // the most ephemerals it held at once (closeOrder)
	watches    smallSet[watchKey]
	outbox     []proto.Notification
	listed     bool // in Machine.notified
	// addr and auth are the identities of its connection: its address
	// ("": DefaultAddress) and what auth packets added since it opened.
	addr string
	auth []AuthID
}

// sessionRoom is a session with room for its first few ephemerals,
// watches and queued notifications, in one allocation: a simulated
// session nearly always holds one or two of each, and their own small
// arrays were a third of the Machine's allocations per session.
type sessionRoom struct {
	s       session
	eph     [2]string
	watches [2]watchKey
	outbox  [2]proto.Notification
}

// newSession returns an empty session whose sets and queue start in its
// sessionRoom; past that room they grow as usual.
func (m *Machine) newSession() *session {
	b := &m.sessionsRoom.take(1, sessionChunk)[0]
	s := &b.s
	s.ephemerals.few, s.watches.few, s.outbox = b.eph[:0], b.watches[:0], b.outbox[:0]
	return s
}

// NewMachine returns an ensemble holding only /, /zookeeper,
// /zookeeper/quota and /zookeeper/config.
func NewMachine(cfg Config) (*Machine, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	m := &Machine{
		cfg: cfg, rng: rng{s: cfg.Seed},
		sessions: map[int64]*session{}, nextID: firstSessionID, reapers: map[string]struct{}{},
	}
	m.replicas = m.room.replicas[:0]
	m.spare = m.room.spare[:0]
	m.byID, m.notified, m.fired = m.room.byID[:0], m.room.notified[:0], m.room.fired[:0]
	for range 1 + cfg.Followers {
		m.replicas = append(m.replicas, newReplica())
	}
	return m, nil
}

// machineRoom is the first room of a Machine's small lists, in the
// Machine's own allocation: a simulator makes a Machine per run.
type machineRoom struct {
	replicas [3]*replica
	spare    [8][]int64
	byID     [8]*session // a run's clients' sessions, live at once
	notified [8]int64
	fired    [4]trigger // a create's or delete's: the node's and its parent's
}

// Config returns the configuration in force, defaults filled in.
func (m *Machine) Config() Config { return m.cfg }

// Zxid is the last zxid the leader assigned.
func (m *Machine) Zxid() int64 { return m.zxid }

// ReplicaZxid is the last zxid replica i has applied.
func (m *Machine) ReplicaZxid(i int) int64 { return m.replicas[i].zxid }

// Now is the virtual time in milliseconds.
func (m *Machine) Now() int64 { return m.now }

// UseClock makes the Machine stamp nodes' ctime and mtime by now (ms
// since 1970) instead of Config.EpochMillis plus the virtual time: a
// server in real time (zksim serve, a fakezk Server in a unit test)
// passes the host's clock, as ZooKeeper stamps a change with its leader's
// clock. Sessions still expire, and TTL nodes age, by Tick. The simulator
// never calls it: a trace must not depend on the host.
func (m *Machine) UseClock(now func() int64) { m.clock = now } // changes nothing a Fingerprint hashes

// stamp is the time a change stamps on the nodes it touches.
func (m *Machine) stamp() int64 {
	if m.clock != nil {
		return m.clock()
	}
	return m.cfg.EpochMillis + m.now
}

func (m *Machine) leader() *replica { return m.replicas[0] }

// SessionInfo describes an open session.
type SessionInfo struct {
	ID        int64
	TimeoutMs int64
}

// CreateSession opens a session (a createSession transaction) connected to
// replica. The timeout is clamped to [2, 20] ticks.
func (m *Machine) CreateSession(replica int, timeoutMs int64) (SessionInfo, error) {
	m.gen++ // see Machine.gen
	if replica < 0 || replica >= len(m.replicas) {
		return SessionInfo{}, fmt.Errorf("fakezk: no replica %d (ensemble of %d)", replica, len(m.replicas))
	}
	timeoutMs = m.clampTimeout(timeoutMs)
	m.newTxn()
	s := m.newSession()
	s.id, s.replica, s.timeout, s.deadline = m.nextID, replica, timeoutMs, m.now+timeoutMs
	s.attached = true
	m.nextID++
	m.sessions[s.id] = s
	m.byID = append(m.byID, s) // ids only increase
	m.CatchUp(replica, m.zxid)
	return SessionInfo{ID: s.id, TimeoutMs: timeoutMs}, nil
}

// clampTimeout bounds a requested session timeout to [2, 20] ticks, as
// ZooKeeper's default min and max session timeouts do.
func (m *Machine) clampTimeout(ms int64) int64 {
	return max(2*m.cfg.TickMillis, min(20*m.cfg.TickMillis, ms))
}

// SessionTimeout returns the session's negotiated timeout in ms, or 0 if
// the session is gone.
func (m *Machine) SessionTimeout(id int64) int64 {
	if s := m.sessions[id]; s != nil {
		return s.timeout
	}
	return 0
}

// Renegotiate takes the timeout a client asked for when it reconnected
// to its session, clamped as CreateSession clamps it, and returns it. From
// then on the session expires by it: ZooKeeper's revalidateSession, and
// every touch after, hand the session tracker the connection's timeout.
// It does nothing to a session that is gone (and returns 0).
func (m *Machine) Renegotiate(id, timeoutMs int64) int64 {
	m.gen++ // see Machine.gen
	s := m.sessions[id]
	if s == nil {
		return 0
	}
	s.timeout = m.clampTimeout(timeoutMs)
	s.deadline = m.now + s.timeout
	return s.timeout
}

// Alive reports whether the session exists (neither closed nor expired).
func (m *Machine) Alive(id int64) bool { return m.sessions[id] != nil }

// SessionIDs lists the live sessions in increasing order.
func (m *Machine) SessionIDs() []int64 {
	ids := make([]int64, len(m.byID))
	for i, s := range m.byID {
		ids[i] = s.id
	}
	return ids
}

// Detach drops the session's connection: its replica forgets its watches,
// undelivered notifications and authenticated identities, and stops
// hearing pings, so the session
// expires after its timeout unless it is re-attached.
func (m *Machine) Detach(id int64) {
	s := m.sessions[id]
	if s == nil || !s.attached {
		return
	}
	m.gen++ // see Machine.gen
	s.attached = false
	m.detached++
	clear(s.outbox) // its array is the session's: see takeOutbox
	s.outbox = s.outbox[:0]
	s.auth = nil // identities belong to the connection: the client re-sends them
	m.dropWatches(s)
}

// Attach reconnects a client that has seen lastZxid to its session through
// replica. It fails with ErrSessionExpired if the session is gone, and with
// ErrConnectionLoss if that replica is behind the client (a client never
// goes back in time). The client should follow with SetWatches.
func (m *Machine) Attach(id int64, replica int, lastZxid int64) error {
	m.gen++ // see Machine.gen
	s := m.sessions[id]
	switch {
	case s == nil:
		return zkapi.ErrSessionExpired
	case replica < 0 || replica >= len(m.replicas):
		return fmt.Errorf("fakezk: no replica %d (ensemble of %d)", replica, len(m.replicas))
	case m.replicas[replica].zxid < lastZxid:
		return fmt.Errorf("%w: replica %d has zxid %#x, client has seen %#x",
			zkapi.ErrConnectionLoss, replica, m.replicas[replica].zxid, lastZxid)
	}
	if s.attached {
		m.Detach(id)
	}
	s.attached, s.replica = true, replica
	m.detached--
	s.deadline = m.now + s.timeout
	return nil
}

// CloseSession ends a session at the client's request (closeSession) and
// returns the session's last notifications: its connection is still open
// while the transaction deletes its ephemerals, so watches it set on them
// fire for it too, before the close is acknowledged.
func (m *Machine) CloseSession(id int64) []proto.Notification {
	m.gen++ // see Machine.gen
	s := m.sessions[id]
	if s == nil {
		return nil
	}
	m.endSession(s)
	return s.outbox
}

// Expire ends a session as the leader's session tracker does when the
// client has not been heard from for its timeout. Its connection, if any,
// is gone first, so it is told nothing.
func (m *Machine) Expire(id int64) {
	m.gen++ // see Machine.gen
	if s := m.sessions[id]; s != nil {
		m.Detach(id)
		m.endSession(s)
	}
}

// endSession is the closeSession transaction: one zxid, every ephemeral of
// the session deleted atomically, in ZooKeeper's order (closeOrder).
func (m *Machine) endSession(s *session) {
	m.newTxn()
	paths := make([]string, 0, s.ephemerals.len())
	s.ephemerals.each(func(p string) { paths = append(paths, p) })
	tree := m.leader().tree
	closeOrder(paths, func(p string) int64 { return tree[p].stat.Czxid }, s.peak)
	for _, p := range paths {
		m.removeNode(p, where{})
	}
	m.dispatch()
	m.CatchUp(s.replica, m.zxid)
	m.dropWatches(s)
	delete(m.sessions, s.id)
	if i, ok := slices.BinarySearchFunc(m.byID, s.id, bySessionID); ok {
		m.byID = slices.Delete(m.byID, i, i+1)
	}
	if !s.attached {
		m.detached--
	}
	m.ended++
}

// bySessionID compares a session with an id, for a search of byID.
func bySessionID(s *session, id int64) int { return cmp.Compare(s.id, id) }

// RenewSessions gives every live session a fresh timeout from now, as a
// newly elected leader does: it rebuilds its session tracker from the
// sessions it knows, each due one whole timeout after the election, so a
// session whose client could not reach a serving server while the ensemble
// had no quorum (or was electing) is not expired for that time. The
// result does not depend on map order: every session gets the same rule.
func (m *Machine) RenewSessions() {
	m.gen++ // see Machine.gen
	for _, s := range m.byID {
		s.deadline = m.now + s.timeout
	}
}

// Tick advances virtual time by one tickTime and returns the sessions it
// expired, in the order it expired them. Followers catch up with the
// leader. Attached sessions are kept alive (their clients ping); detached
// ones expire once their timeout has passed since they were last heard.
func (m *Machine) Tick() []int64 {
	m.gen++ // see Machine.gen
	m.now += m.cfg.TickMillis
	m.ticks++
	for i := 1; i < len(m.replicas); i++ {
		m.CatchUp(i, m.zxid)
	}
	var expired []int64 // in increasing order, as byID is
	for _, s := range m.byID {
		if s.attached {
			s.deadline = m.now + s.timeout
		} else if m.now >= s.deadline {
			expired = append(expired, s.id)
		}
	}
	for _, id := range expired {
		m.Expire(id)
	}
	if k := int64(m.cfg.ContainerCheckTicks); k > 0 && m.ticks%k == 0 {
		m.ReapContainers()
	}
	return expired
}

// CatchUp makes follower i apply the log up to zxid, firing the watches of
// its sessions as it goes. On the leader it does nothing.
func (m *Machine) CatchUp(i int, zxid int64) {
	m.gen++ // see Machine.gen
	r := m.replicas[i]
	if i == 0 {
		return
	}
	for r.next < len(m.log) && m.log[r.next].zxid <= zxid {
		t := m.log[r.next]
		fired := m.caught[:0]
		for _, p := range t.prims {
			fired = r.apply(p, m.cfg.Overflow, fired, nil, where{})
		}
		r.zxid = t.zxid
		r.next++
		m.notifyOn(i, fired, t.zxid)
		m.caught = fired[:0]
	}
	m.trimLog()
}

// trimLog drops the transactions every follower has applied.
func (m *Machine) trimLog() {
	done := len(m.log)
	for _, r := range m.replicas[1:] {
		done = min(done, r.next)
	}
	if done == 0 {
		return
	}
	// Swapped, not copied, down: the applied transactions' arrays of
	// prims end up past the log's end, each once, for newTxn to reuse.
	live := len(m.log) - done
	for i := range live {
		m.log[i], m.log[i+done] = m.log[i+done], m.log[i]
	}
	for i := live; i < len(m.log); i++ {
		clear(m.log[i].prims) // let go of their data and ACLs
	}
	m.log = m.log[:live]
	for _, r := range m.replicas[1:] {
		r.next -= done
	}
}

// ReapContainers deletes every container node that has had children and
// has none now, and every TTL node without children whose mtime is more
// than its TTL old, each in its own transaction, as ContainerManager does.
func (m *Machine) ReapContainers() {
	m.gen++ // see Machine.gen
	var paths []string
	for p := range m.reapers {
		if m.reapable(m.leader().tree[p]) {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		m.newTxn()
		m.removeNode(p, where{})
		m.dispatch()
	}
}

// SetSequence sets the sequence counter of an existing node on every
// server: its next sequential child gets n. Tests use it to reach 2^31-1.
func (m *Machine) SetSequence(path string, n int32) error {
	m.gen++ // see Machine.gen
	if m.leader().tree[path] == nil {
		return proto.Wrap("setsequence", path, zkapi.ErrNoNode)
	}
	for _, r := range m.replicas {
		if node := r.tree[path]; node != nil {
			node.cversion = n
			r.touch(node)
		}
	}
	return nil
}

// TakeNotifications removes and returns the notifications queued for a
// session, oldest first.
func (m *Machine) TakeNotifications(id int64) []proto.Notification { return m.takeOutbox(id, false) }

// DrainNotifications is TakeNotifications for a caller that is done with
// the result before its next call on the Machine (the simulator, which
// copies each into a client's inbox at once): the session keeps the
// queue's array for its next notifications, which then need no
// allocation.
func (m *Machine) DrainNotifications(id int64) []proto.Notification { return m.takeOutbox(id, true) }

// takeOutbox empties the session's queue and returns what it held;
// keep: the queue keeps its array (DrainNotifications).
func (m *Machine) takeOutbox(id int64, keep bool) []proto.Notification {
	s := m.sessions[id]
	if s == nil || len(s.outbox) == 0 {
		return nil
	}
	m.gen++ // see Machine.gen
	out := s.outbox
	s.outbox = nil
	if keep {
		s.outbox = out[:0]
	}
	return out
}

// Posted counts the notifications queued since the Machine was made: a
// caller that has seen the count unchanged since its last drain knows
// every queue is still empty, without asking each session.
func (m *Machine) Posted() uint64 { return m.posts }

// TakeNotified returns, in increasing order, the sessions whose queue of
// notifications became non-empty since the previous call, and forgets
// them. Some may have ended or had their queue taken meanwhile. A server
// delivers to these instead of asking every session.
func (m *Machine) TakeNotified() []int64 { // changes nothing a Fingerprint hashes
	if len(m.notified) == 0 {
		return nil
	}
	ids := slices.Clone(m.notified)
	m.notified = m.notified[:0]
	for _, id := range ids {
		if s := m.sessions[id]; s != nil {
			s.listed = false
		}
	}
	slices.Sort(ids)
	return ids
}

// EndedSessions is the number of sessions ended (closed or expired) so
// far: a server that sees it unchanged knows every session it holds lives.
func (m *Machine) EndedSessions() int64 { return m.ended }

// Do applies one request from a session and returns the reply. Watch
// notifications it causes are queued on the sessions they are for, each
// before any later reply to that session. Reads are served by the
// session's replica; writes by the leader, and the session's replica catches
// up with them before replying.
func (m *Machine) Do(id int64, req proto.Request) proto.Reply {
	m.gen++ // see Machine.gen
	s, err := m.requester(id)
	if err != nil {
		return proto.Reply{Zxid: m.zxid, Err: err}
	}
	var r proto.Reply
	if m.apply(s, req, &r) { // a read fires no watch
		m.dispatch()
		// A follower applies a write it forwarded before it replies; a read
		// it answers first, so that a watch the read sets is known to the
		// client before the change that fires it arrives.
		m.CatchUp(s.replica, m.zxid)
	}
	r.Zxid = m.replicas[s.replica].zxid
	return r
}

// requester is the session id sending a request, its timeout renewed by
// the request; or the error a session gone (ErrSessionExpired) or
// detached (ErrConnectionLoss) gets, with the server's zxid.
func (m *Machine) requester(id int64) (*session, error) {
	s := m.sessions[id]
	if s == nil {
		return nil, zkapi.ErrSessionExpired
	}
	if !s.attached {
		return nil, zkapi.ErrConnectionLoss
	}
	s.deadline = m.now + s.timeout
	return s, nil
}

// apply serves req, filling in out (which starts empty), and says
// whether it is a write (create, delete, setData, multi, setACL): each
// of those takes a zxid, failed or not, and only those fire watches.
// The common requests fill out's fields in place: a Reply is large, and
// copying it up through each call cost more than serving a read.
func (m *Machine) apply(s *session, req proto.Request, out *proto.Reply) bool {
	switch r := req.(type) {
	case proto.Create:
		m.newTxn()
		out.Path, out.Err = m.doCreate(s, r)
		return true
	case proto.Delete:
		m.newTxn()
		out.Err = m.doDelete(s, r.Path, r.Version)
		return true
	case proto.SetData:
		m.newTxn()
		out.Stat, out.Err = m.doSetData(s, r.Path, r.Data, r.Version)
		return true
	case proto.Multi:
		m.newTxn()
		out.Results, out.Err = m.multi(s, r)
		return true
	case proto.SetACL:
		m.newTxn()
		*out = m.setACL(s, r)
		return true
	case proto.Exists:
		m.exists(s, r, out)
	case proto.GetData:
		m.getData(s, r, out)
	case proto.GetChildren:
		m.getChildren(s, r, out)
	default:
		m.applyOther(s, req, out)
	}
	return false
}

// applyOther is apply for the requests the simulator's workloads
// seldom or never send (all of them reads): out of line.
//
//go:noinline
func (m *Machine) applyOther(s *session, req proto.Request, out *proto.Reply) {
	switch r := req.(type) {
	case proto.GetACL:
		*out = m.getACL(s, r)
	case proto.AddAuth:
		out.Err = m.addAuth(s, r)
	case proto.SetWatches:
		m.setWatches(s, r)
	case proto.AddWatch:
		*out = m.addWatch(s, r)
	case proto.RemoveWatches:
		*out = m.removeWatches(s, r)
	case proto.Sync:
		m.CatchUp(s.replica, m.zxid)
		out.Path = r.Path
	case proto.Ping:
	default:
		panic(fmt.Sprintf("fakezk: request type %T is not in the closed set", req))
	}
}

// newTxn starts a transaction: every write, failed or not, takes a zxid,
// as do createSession and closeSession.
func (m *Machine) newTxn() {
	m.zxid++
	m.leader().zxid = m.zxid
	if len(m.replicas) > 1 {
		m.logTxn()
	}
}

// logTxn starts the new transaction's entry in the followers' log: out
// of line, as an ensemble without followers has no log.
//
//go:noinline
func (m *Machine) logTxn() {
	m.log = slices.Grow(m.log, 1)[:len(m.log)+1]
	t := &m.log[len(m.log)-1] // an applied one's room, or a new one
	t.zxid, t.prims = m.zxid, t.prims[:0]
}

// change applies a primitive on the leader within the current
// transaction, logging it for followers and undo; at is what the caller
// looked up of it on the leader. Not inlined: every write shares one
// copy of it, which keeps the code a request runs through small.
//
//go:noinline
func (m *Machine) change(p prim, at where) {
	p.zxid, p.now, p.vnow = m.zxid, m.stamp(), m.now
	p.cut = at.cut(p.path)
	var owner *session
	switch p.kind {
	case primAdd:
		owner = m.ownerSession(p.owner)
		m.noteReaper(p.path, p.owner, true)
	case primRemove:
		at.n = m.leader().known(at.n, p.path)
		was := at.n.stat.EphemeralOwner
		owner = m.ownerSession(was)
		m.noteReaper(p.path, was, false)
	}
	if p.kind == primAdd || p.kind == primSet {
		// One copy of the caller's bytes, shared by every replica and the
		// log: none of them writes to a node's data.
		p.data = m.cloneData(p.data)
	}
	var u *undoRec
	if m.inMulti {
		u = m.newUndo()
	}
	m.fired = m.leader().apply(p, m.cfg.Overflow, m.fired, u, at)
	if owner != nil {
		if u != nil {
			u.owner, u.oldPeak = owner, owner.peak
		}
		owner.setEphemeral(p.path, p.kind == primAdd)
	}
	if len(m.replicas) > 1 {
		m.logPrim(p)
	}
}

// logPrim appends p to the current transaction in the followers' log.
//
//go:noinline
func (m *Machine) logPrim(p prim) {
	last := &m.log[len(m.log)-1]
	last.prims = append(last.prims, p)
}

// setEphemeral adds path to, or removes it from, the session's ephemerals.
func (s *session) setEphemeral(path string, on bool) {
	if on {
		s.ephemerals.add(path)
		s.peak = max(s.peak, s.ephemerals.len())
	} else {
		s.ephemerals.remove(path)
	}
}

// addNode, removeNode and setNodeData change path on the leader; at is
// what their caller looked up of it there (where).
func (m *Machine) addNode(path string, data []byte, acl []zkapi.ACL, owner int64, at where) {
	m.change(prim{kind: primAdd, path: path, data: data, acl: acl, owner: owner}, at)
}

func (m *Machine) removeNode(path string, at where) {
	m.change(prim{kind: primRemove, path: path}, at)
}

func (m *Machine) setNodeData(path string, data []byte, at where) {
	m.change(prim{kind: primSet, path: path, data: data}, at)
}

func (m *Machine) ownerSession(owner int64) *session {
	if owner == 0 || owner == containerOwner || isTTLOwner(owner) {
		return nil
	}
	return m.sessions[owner]
}

// newUndo returns a new, empty record at the end of the multi's undo
// list: out of line, as only a multi's changes log their undo.
//
//go:noinline
func (m *Machine) newUndo() *undoRec {
	m.undo = append(m.undo, undoRec{})
	return &m.undo[len(m.undo)-1]
}

// beginUndo starts logging undos for a multi.
func (m *Machine) beginUndo() { m.inMulti = true }

// endUndo stops logging undos, keeping the emptied list for the next multi.
func (m *Machine) endUndo() {
	clear(m.undo)
	m.undo, m.inMulti = m.undo[:0], false
}

// rollback undoes the current multi: tree, ephemerals, log and triggers.
func (m *Machine) rollback() {
	for j := len(m.undo) - 1; j >= 0; j-- {
		u := &m.undo[j]
		if u.owner != nil {
			u.owner.setEphemeral(u.p.path, u.p.kind != primAdd)
			u.owner.peak = u.oldPeak // a multi that failed added nothing
		}
		switch u.p.kind {
		case primAdd:
			m.noteReaper(u.p.path, u.p.owner, false)
		case primRemove:
			m.noteReaper(u.p.path, u.n.stat.EphemeralOwner, true)
		}
		m.leader().undo(u)
	}
	if len(m.replicas) > 1 {
		t := &m.log[len(m.log)-1]
		clear(t.prims)
		t.prims = t.prims[:0]
	}
	m.fired = m.fired[:0]
}

// Children lists the children of path on the leader, sorted, for
// inspection; nil if path does not exist. It changes nothing.
func (m *Machine) Children(path string) []string {
	n := m.leader().tree[path]
	if n == nil {
		return nil
	}
	return childNames(n)
}

// Node returns a node's data and Stat on the leader, for inspection.
func (m *Machine) Node(path string) ([]byte, zkapi.Stat, bool) {
	n := m.leader().tree[path]
	if n == nil {
		return nil, zkapi.Stat{}, false
	}
	return slices.Clone(n.data), n.view(), true
}
