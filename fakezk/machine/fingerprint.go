package machine

import (
	"github.com/zksim/zksim/internal/fphash"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/proto"
)

// Fingerprint hashes everything that decides the Machine's future answers:
// every replica's tree (ACLs included) and watch tables (with the watches'
// modes), the log followers have yet to apply, the sessions (with their
// ephemerals, watches, deadlines, identities and queued notifications),
// the counters and the seeded shuffle's state.
// Two Machines with equal fingerprints answer every sequence of inputs
// alike (up to a hash collision). A systematic search uses it to know a
// state it has seen. Maps are hashed as sets, so Go's map order does not
// reach the result.
func (m *Machine) Fingerprint() uint64 { return m.FingerprintAs(nil) }

// FingerprintAs is Fingerprint of the Machine as it would be with its
// clients renamed by r (nil: as it is): a search that treats identical
// clients as interchangeable hashes a state under every renaming and
// keeps the least.
func (m *Machine) FingerprintAs(r *Renaming) uint64 {
	var h fphash.Hash
	h.Int(m.zxid)
	h.Int(m.now)
	h.Int(m.ticks)
	h.Uint(m.rng.s)
	h.Int(m.nextID)
	for _, rep := range m.replicas {
		h.Uint(rep.fingerprint(r))
	}
	for _, t := range m.log {
		h.Int(t.zxid)
		for _, p := range t.prims {
			h.Uint(uint64(p.kind))
			r.str(&h, p.path)
			r.bytes(&h, p.data)
			r.session(&h, p.owner)
			h.Int(p.now)
			hashACL(&h, p.acl)
		}
	}
	var sessions fphash.Hash
	for _, s := range m.sessions {
		sessions.Add(s.fingerprint(r))
	}
	h.Uint(sessions.Sum())
	return h.Sum()
}

// Renaming maps the tokens that tell clients apart to those of other
// clients, for hashing a state as its mirror image. A client's name
// token is "c<digit>_" at the start of a string or after a character
// that is not a letter, digit or underscore (the workload's node names
// and data: "lock-c1_0.0-0000000003", "c1_0"); its sessions are ids.
// The renaming is only hashed: nothing is rewritten.
type Renaming struct {
	// Names[d] is the digit that client digit d ('1'..'9') becomes; a
	// zero entry keeps it.
	Names [10]byte
	// Session maps a session id to the id it hashes as; nil keeps it.
	Session func(id int64) int64
}

// maxRenamed is the longest string hashed renamed without a copy on the
// heap; longer ones are copied.
const maxRenamed = 128

// str folds s into h as renamed by r.
func (r *Renaming) str(h *fphash.Hash, s string) {
	if r == nil || !r.renames(s) {
		h.String(s)
		return
	}
	var buf [maxRenamed]byte
	b := buf[:0]
	if len(s) > maxRenamed {
		b = make([]byte, 0, len(s))
	}
	b = append(b, s...)
	r.rewrite(b)
	h.Bytes(b)
}

func (r *Renaming) bytes(h *fphash.Hash, data []byte) {
	if data == nil || r == nil {
		h.Bytes(data)
		return
	}
	r.str(h, string(data))
}

// renames reports whether s holds a token r changes.
func (r *Renaming) renames(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		if r.tokenAt(s[i], s[i+1], s[i+2], i == 0 || !word(s[i-1])) {
			return true
		}
	}
	return false
}

func (r *Renaming) tokenAt(c, d, u byte, boundary bool) bool {
	return boundary && c == 'c' && d >= '1' && d <= '9' && u == '_' && r.Names[d-'0'] != 0
}

// rewrite renames the tokens of b in place (digits stay one byte).
func (r *Renaming) rewrite(b []byte) {
	for i := 0; i+2 < len(b); i++ {
		if r.tokenAt(b[i], b[i+1], b[i+2], i == 0 || !word(b[i-1])) {
			b[i+1] = r.Names[b[i+1]-'0']
			i += 2
		}
	}
}

func word(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func (r *Renaming) session(h *fphash.Hash, id int64) {
	if r != nil && r.Session != nil {
		id = r.Session(id)
	}
	h.Int(id)
}

func (r *replica) fingerprint(rn *Renaming) uint64 {
	var nodes fphash.Hash
	for path, n := range r.tree {
		var h fphash.Hash
		rn.str(&h, path)
		rn.bytes(&h, n.data)
		rn.stat(&h, n.stat)
		h.Int(int64(n.cversion))
		h.Uint(rn.children(n.children))
		hashACL(&h, n.acl)
		nodes.Add(h.Sum())
	}
	var h fphash.Hash
	h.Uint(nodes.Sum())
	h.Int(r.zxid)
	h.Int(int64(r.next))
	h.Uint(r.dataW.fingerprint(rn))
	h.Uint(r.childW.fingerprint(rn))
	if len(r.modes) > 0 { // none unless addWatch was used: hashes stay as they were
		var modes fphash.Hash
		for k, mode := range r.modes {
			var e fphash.Hash
			rn.str(&e, k.path)
			e.Uint(uint64(k.kind))
			rn.session(&e, k.id)
			e.Uint(uint64(mode))
			modes.Add(e.Sum())
		}
		h.Uint(modes.Sum())
	}
	return h.Sum()
}

// children hashes a node's children, kept sorted by name: in order, or
// renamed as a set (renaming changes their sorted order, not the set).
func (r *Renaming) children(names []string) uint64 {
	var h fphash.Hash
	if r == nil {
		for _, c := range names {
			h.String(c)
		}
		return h.Sum()
	}
	for _, c := range names {
		var e fphash.Hash
		r.str(&e, c)
		h.Add(e.Sum())
	}
	return h.Sum()
}

// fingerprint hashes a watch table as a set of (path, session) pairs: the
// order of a path's watchers is only the order in which their sessions'
// queues are appended to, which no session can see.
func (t watchTable) fingerprint(r *Renaming) uint64 {
	var all fphash.Hash
	for path, ids := range t {
		for _, id := range ids {
			var h fphash.Hash
			r.str(&h, path)
			r.session(&h, id)
			all.Add(h.Sum())
		}
	}
	return all.Sum()
}

func (s *session) fingerprint(r *Renaming) uint64 {
	var h fphash.Hash
	r.session(&h, s.id)
	h.Int(int64(s.replica))
	h.Int(s.timeout)
	h.Int(s.deadline)
	h.Bool(s.attached)
	var eph, w fphash.Hash
	s.ephemerals.each(func(p string) {
		var e fphash.Hash
		r.str(&e, p)
		eph.Add(e.Sum())
	})
	s.watches.each(func(k watchKey) {
		var e fphash.Hash
		r.str(&e, k.path)
		e.Uint(uint64(k.kind))
		w.Add(e.Sum())
	})
	h.Uint(eph.Sum())
	h.Uint(w.Sum())
	h.String(s.addr)
	h.Int(int64(len(s.auth)))
	for _, id := range s.auth {
		h.String(id.Scheme)
		h.String(id.ID)
	}
	if b := closeBuckets(s.peak); b > 16 { // it orders a close's deletions; at 16, hashes stay as they were
		h.Int(int64(b))
	}
	for _, n := range s.outbox {
		r.HashNotification(&h, n)
	}
	return h.Sum()
}

func (r *Renaming) stat(h *fphash.Hash, st zkapi.Stat) {
	h.Int(st.Czxid)
	h.Int(st.Mzxid)
	h.Int(st.Pzxid)
	h.Int(st.Ctime)
	h.Int(st.Mtime)
	h.Int(int64(st.Version))
	h.Int(int64(st.Cversion))
	h.Int(int64(st.Aversion))
	r.session(h, st.EphemeralOwner)
	h.Int(int64(st.DataLength))
	h.Int(int64(st.NumChildren))
}

// HashNotification folds a notification into h as renamed by r.
func (r *Renaming) HashNotification(h *fphash.Hash, n proto.Notification) {
	h.Int(n.Zxid)
	r.HashEvent(h, n.Event)
}

// HashEvent folds a watch event into h as renamed by r.
func (r *Renaming) HashEvent(h *fphash.Hash, ev zkapi.Event) {
	h.Int(int64(ev.Type))
	r.str(h, ev.Path)
	hashErr(h, ev.Err)
}

// hashErr folds in an error by its ZooKeeper code name: the errors the
// Machine returns wrap zkapi's sentinels, and the text beyond the code
// (paths, zxids) is already hashed from the request.
func hashErr(h *fphash.Hash, err error) {
	if err == nil {
		h.Uint(0)
		return
	}
	name := zkapi.Name(err)
	if name == "SystemError" { // not a ZooKeeper code: a context's error
		name = err.Error()
	}
	h.String(name)
}

// HashReply folds a reply into h as renamed by r: everything a client
// can read from it.
func (r *Renaming) HashReply(h *fphash.Hash, rep proto.Reply) {
	h.Int(rep.Zxid)
	hashErr(h, rep.Err)
	r.str(h, rep.Path)
	r.bytes(h, rep.Data)
	r.stat(h, rep.Stat)
	h.Int(int64(len(rep.Children)))
	for _, c := range rep.Children {
		r.str(h, c)
	}
	if rep.ACL != nil { // only getACL answers one
		hashACL(h, rep.ACL)
	}
	h.Int(int64(len(rep.Results)))
	for _, res := range rep.Results {
		r.str(h, res.Path)
		r.stat(h, res.Stat)
		hashErr(h, res.Err)
	}
}

// HashSession folds a session id into h as renamed by r.
func (r *Renaming) HashSession(h *fphash.Hash, id int64) { r.session(h, id) }

// HashString folds a string that may name clients into h as renamed by r.
func (r *Renaming) HashString(h *fphash.Hash, s string) { r.str(h, s) }

// HashErr folds an error into h by its ZooKeeper code name.
func HashErr(h *fphash.Hash, err error) { hashErr(h, err) }

// Due is the number of ticks until time next changes something in the
// ensemble: a detached session expires, a lagging follower catches up
// (on the next tick), or the container reaper runs with an empty
// container or an expired TTL node to reap; 0 if letting time pass would change nothing. A
// search uses it to tell a deadlock (only time could advance, and it
// would change nothing) from a wait for time, and to skip the ticks in
// between.
func (m *Machine) Due() int64 {
	due := int64(0)
	next := func(ticks int64) {
		if due == 0 || ticks < due {
			due = ticks
		}
	}
	for _, s := range m.sessions {
		if !s.attached {
			// Tick expires it once now >= deadline, now having grown.
			next(max(1, (s.deadline-m.now+m.cfg.TickMillis-1)/m.cfg.TickMillis))
		}
	}
	for i := 1; i < len(m.replicas); i++ {
		if m.replicas[i].zxid < m.zxid {
			next(1)
		}
	}
	if k := int64(m.cfg.ContainerCheckTicks); k > 0 {
		for p := range m.reapers { // only these can be reaped
			if n := m.leader().tree[p]; m.reapable(n) || reapableLater(n) {
				next(m.reapDue(n, k))
			}
		}
	}
	return due
}

// hashACL folds an ACL into h; the open ACL, every node's unless set
// otherwise, as one number.
func hashACL(h *fphash.Hash, acl []zkapi.ACL) {
	if len(acl) == 1 && acl[0] == openACL[0] {
		h.Int(-1)
		return
	}
	h.Int(int64(len(acl)))
	for _, a := range acl {
		h.Int(int64(a.Perms))
		h.String(a.Scheme)
		h.String(a.ID)
	}
}
