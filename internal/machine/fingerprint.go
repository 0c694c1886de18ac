package machine

import (
	"github.com/zksim/zksim/internal/fphash"
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
	if r != nil {
		return m.fingerprint(r, false)
	}
	if !m.fpOK || m.fpGen != m.gen {
		m.fp, m.fpGen, m.fpOK = m.fingerprint(nil, true), m.gen, true
	}
	return m.fp
}

// FingerprintFresh is Fingerprint computed from scratch, every node
// hashed anew: tests check against it the last fingerprint and the node
// hashes Fingerprint keeps (see Machine.gen, replica.touch).
func (m *Machine) FingerprintFresh() uint64 { return m.fingerprint(nil, false) }

// fingerprint is FingerprintAs(r), from the kept node hashes if kept (r
// must then be nil: only the state as it is is kept).
func (m *Machine) fingerprint(r *Renaming, kept bool) uint64 {
	var h fphash.Hash
	h.Int(m.zxid)
	h.Int(m.now)
	h.Int(m.ticks)
	h.Uint(m.rng.s)
	h.Int(m.nextID)
	for _, rep := range m.replicas {
		h.Uint(rep.fingerprint(r, kept))
	}
	for _, t := range m.log {
		h.Int(t.zxid)
		for _, p := range t.prims {
			h.Uint(uint64(p.kind))
			r.HashString(&h, p.path)
			r.HashBytes(&h, p.data)
			r.HashSession(&h, p.owner)
			h.Int(p.now)
			fphash.HashACL(&h, p.acl)
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
// clients, for hashing a state as its mirror image (see FingerprintAs);
// its folds are shared with the simulator, which hashes its clients'
// histories the same way.
type Renaming = fphash.Renaming

func (r *replica) fingerprint(rn *Renaming, kept bool) uint64 {
	var h fphash.Hash
	if kept {
		h.Uint(r.keptNodes())
	} else {
		var nodes fphash.Hash
		for path, n := range r.tree {
			nodes.Add(n.hash(rn, path))
		}
		h.Uint(nodes.Sum())
	}
	h.Int(r.zxid)
	h.Int(int64(r.next))
	h.Uint(r.dataW.fingerprint(rn))
	h.Uint(r.childW.fingerprint(rn))
	if len(r.modes) > 0 { // none unless addWatch was used: hashes stay as they were
		var modes fphash.Hash
		for k, mode := range r.modes {
			var e fphash.Hash
			rn.HashString(&e, k.path)
			e.Uint(uint64(k.kind))
			rn.HashSession(&e, k.id)
			e.Uint(uint64(mode))
			modes.Add(e.Sum())
		}
		h.Uint(modes.Sum())
	}
	return h.Sum()
}

// keptNodes is the set hash of the tree's nodes, as fingerprint hashes
// them without a renaming, from the hashes kept since the last call:
// only the nodes touched since are rehashed (removed, or added anew).
// The first call hashes every node and starts the keeping.
func (r *replica) keptNodes() uint64 {
	if !r.hashing {
		for path, n := range r.tree {
			n.fp, n.counted = n.hash(nil, path), true
			r.nodes.Add(n.fp)
		}
		r.hashing = true
	}
	for _, n := range r.dirty {
		n.dirty = false
		if n.counted {
			r.nodes.Remove(n.fp)
			n.counted = false
		}
		if r.tree[n.path] == n {
			n.fp, n.counted = n.hash(nil, n.path), true
			r.nodes.Add(n.fp)
		}
	}
	clear(r.dirty)
	r.dirty = r.dirty[:0]
	return r.nodes.Sum()
}

// hash is the hash of n, at path, as renamed by rn.
func (n *znode) hash(rn *Renaming, path string) uint64 {
	var h fphash.Hash
	rn.HashString(&h, path)
	rn.HashBytes(&h, n.data)
	rn.HashStat(&h, n.stat)
	h.Int(int64(n.cversion))
	h.Uint(n.hashChildren(rn))
	if n.buckets > 8 { // 8 is every node's that ever had a child: hashes stay as they were
		h.Int(int64(n.buckets))
	}
	fphash.HashACL(&h, n.acl)
	return h.Sum()
}

// hashChildren hashes n's children as a fingerprint takes them: in
// listing order, which with the table size decides every later one
// (buckets only ever split, so names in different buckets never meet
// again), as Renaming.HashChildren hashes a list, and without building
// the listing (a search fingerprints every state). A renamed fingerprint
// hashes them as a set: renaming changes the names, and with them their
// order, which a mirror image is taken to ignore, as it did when the
// order was a seeded shuffle.
func (n *znode) hashChildren(rn *Renaming) uint64 {
	if rn != nil || len(n.children) < 2 {
		return rn.HashChildren(n.children)
	}
	var h fphash.Hash
	var buf [32]uint64
	for _, i := range n.order(buf[:0]) {
		h.String(n.children[i])
	}
	return h.Sum()
}

// fingerprint hashes a watch table as a set of (path, session) pairs: the
// order of a path's watchers is only the order in which their sessions'
// queues are appended to, which no session can see.
func (t watchTable) fingerprint(r *Renaming) uint64 {
	var all fphash.Hash
	if len(t) == 0 { // the empty set's hash, without starting a map's iteration
		return all.Sum()
	}
	for path, ids := range t {
		for _, id := range ids {
			var h fphash.Hash
			r.HashString(&h, path)
			r.HashSession(&h, id)
			all.Add(h.Sum())
		}
	}
	return all.Sum()
}

func (s *session) fingerprint(r *Renaming) uint64 {
	var h fphash.Hash
	r.HashSession(&h, s.id)
	h.Int(int64(s.replica))
	h.Int(s.timeout)
	h.Int(s.deadline)
	h.Bool(s.attached)
	var eph, w fphash.Hash
	s.ephemerals.each(func(p string) {
		var e fphash.Hash
		r.HashString(&e, p)
		eph.Add(e.Sum())
	})
	s.watches.each(func(k watchKey) {
		var e fphash.Hash
		r.HashString(&e, k.path)
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
	if m.detached > 0 { // a map's iteration costs even when it finds nothing
		for _, s := range m.sessions {
			if !s.attached {
				// Tick expires it once now >= deadline, now having grown.
				next(max(1, (s.deadline-m.now+m.cfg.TickMillis-1)/m.cfg.TickMillis))
			}
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
