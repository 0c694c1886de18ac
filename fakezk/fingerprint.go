package fakezk

import (
	"github.com/zksim/zksim/internal/fphash"
	"github.com/zksim/zksim/zkapi"
)

// Fingerprint hashes everything that decides the Machine's future answers:
// every replica's tree and watch tables, the log followers have yet to
// apply, the sessions (with their ephemerals, watches, deadlines and
// queued notifications), the counters and the seeded shuffle's state.
// Two Machines with equal fingerprints answer every sequence of inputs
// alike (up to a hash collision). A systematic search uses it to know a
// state it has seen. Maps are hashed as sets, so Go's map order does not
// reach the result.
func (m *Machine) Fingerprint() uint64 {
	var h fphash.Hash
	h.Int(m.zxid)
	h.Int(m.now)
	h.Int(m.ticks)
	h.Uint(m.rng.s)
	h.Int(m.nextID)
	for _, r := range m.servers {
		h.Uint(r.fingerprint())
	}
	for _, t := range m.log {
		h.Int(t.zxid)
		for _, p := range t.prims {
			h.Uint(uint64(p.kind))
			h.String(p.path)
			h.Bytes(p.data)
			h.Int(p.owner)
			h.Int(p.now)
		}
	}
	var sessions fphash.Hash
	for _, s := range m.sessions {
		sessions.Add(s.fingerprint())
	}
	h.Uint(sessions.Sum())
	return h.Sum()
}

func (r *replica) fingerprint() uint64 {
	var nodes fphash.Hash
	for path, n := range r.tree {
		var h fphash.Hash
		h.String(path)
		h.Bytes(n.data)
		hashStat(&h, n.stat)
		h.Int(int64(n.cversion))
		for _, c := range n.children {
			h.String(c)
		}
		nodes.Add(h.Sum())
	}
	var h fphash.Hash
	h.Uint(nodes.Sum())
	h.Int(r.zxid)
	h.Int(int64(r.next))
	h.Uint(r.dataW.fingerprint())
	h.Uint(r.childW.fingerprint())
	return h.Sum()
}

// fingerprint hashes a watch table as a set of (path, session) pairs: the
// order of a path's watchers is only the order in which their sessions'
// queues are appended to, which no session can see.
func (t watchTable) fingerprint() uint64 {
	var all fphash.Hash
	for path, ids := range t {
		for _, id := range ids {
			var h fphash.Hash
			h.String(path)
			h.Int(id)
			all.Add(h.Sum())
		}
	}
	return all.Sum()
}

func (s *session) fingerprint() uint64 {
	var h fphash.Hash
	h.Int(s.id)
	h.Int(int64(s.server))
	h.Int(s.timeout)
	h.Int(s.deadline)
	h.Bool(s.attached)
	var eph, w fphash.Hash
	s.ephemerals.each(func(p string) {
		var e fphash.Hash
		e.String(p)
		eph.Add(e.Sum())
	})
	s.watches.each(func(k watchKey) {
		var e fphash.Hash
		e.String(k.path)
		e.Uint(uint64(k.kind))
		w.Add(e.Sum())
	})
	h.Uint(eph.Sum())
	h.Uint(w.Sum())
	for _, n := range s.outbox {
		HashNotification(&h, n)
	}
	return h.Sum()
}

func hashStat(h *fphash.Hash, st zkapi.Stat) {
	h.Int(st.Czxid)
	h.Int(st.Mzxid)
	h.Int(st.Pzxid)
	h.Int(st.Ctime)
	h.Int(st.Mtime)
	h.Int(int64(st.Version))
	h.Int(int64(st.Cversion))
	h.Int(int64(st.Aversion))
	h.Int(st.EphemeralOwner)
	h.Int(int64(st.DataLength))
	h.Int(int64(st.NumChildren))
}

// HashNotification folds a notification into h.
func HashNotification(h *fphash.Hash, n Notification) {
	h.Int(n.Zxid)
	hashEvent(h, n.Event)
}

func hashEvent(h *fphash.Hash, ev zkapi.Event) {
	h.Int(int64(ev.Type))
	h.String(ev.Path)
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

// HashReply folds a reply into h: everything a client can read from it.
func HashReply(h *fphash.Hash, r Reply) {
	h.Int(r.Zxid)
	hashErr(h, r.Err)
	h.String(r.Path)
	h.Bytes(r.Data)
	hashStat(h, r.Stat)
	h.Int(int64(len(r.Children)))
	for _, c := range r.Children {
		h.String(c)
	}
	h.Int(int64(len(r.Results)))
	for _, res := range r.Results {
		h.String(res.Path)
		hashStat(h, res.Stat)
		hashErr(h, res.Err)
	}
}

// HashEvent folds a watch event into h.
func HashEvent(h *fphash.Hash, ev zkapi.Event) { hashEvent(h, ev) }

// HashErr folds an error into h by its ZooKeeper code name.
func HashErr(h *fphash.Hash, err error) { hashErr(h, err) }

// Due is the number of ticks until time next changes something in the
// ensemble: a detached session expires, a lagging follower catches up
// (on the next tick), or the container reaper runs with an empty
// container to reap; 0 if letting time pass would change nothing. A
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
	for i := 1; i < len(m.servers); i++ {
		if m.servers[i].zxid < m.zxid {
			next(1)
		}
	}
	if k := int64(m.cfg.ContainerCheckTicks); k > 0 {
		for _, n := range m.leader().tree {
			if n.stat.EphemeralOwner == containerOwner && len(n.children) == 0 && n.cversion > 0 {
				next(k - m.ticks%k)
				break
			}
		}
	}
	return due
}
