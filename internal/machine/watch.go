package machine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/zkapi"
)

type watchKind uint8

const (
	watchData  watchKind = iota // exists and getData watches
	watchChild                  // getChildren watches
)

type watchKey struct {
	path string
	kind watchKind
}

// trigger is one watch event a change causes. acl is the ACL of the
// node the event is about: a watcher without READ on it is not told, and
// loses its watch all the same (CVE-2024-23944's fix, in Debian's
// 3.8.0-11+deb12u2, the server that judges the fake: every event is
// filtered by NIOServerCnxn.process(event, acl)).
type trigger struct {
	path string
	typ  zkapi.EventType
	acl  []zkapi.ACL
}

// watchTable maps a path to the sessions watching it (few: a slice).
type watchTable map[string][]int64

func (r *replica) table(k watchKind) watchTable {
	if k == watchChild {
		return r.childW
	}
	return r.dataW
}

func (r *replica) setTable(k watchKind, t watchTable) {
	if k == watchChild {
		r.childW = t
	} else {
		r.dataW = t
	}
}

// watchPeaks are the most entries a replica's watch tables and modes
// have held since they were last rebuilt (shrunk).
type watchPeaks struct {
	table [2]int
	modes int
}

// hold records that s holds the watch k, counting it if it is new.
func (m *Machine) hold(s *session, k watchKey) {
	n := s.watches.len()
	s.watches.add(k)
	m.watchCount += s.watches.len() - n
}

// release records that s no longer holds the watch k.
func (m *Machine) release(s *session, k watchKey) {
	n := s.watches.len()
	s.watches.remove(k)
	m.watchCount -= n - s.watches.len()
}

// watchMode is how a watch fires (ZooKeeper's WatcherMode): once
// (standard: exists, getData, getChildren), at every change of its node
// (persistent: addWatch mode 0), or of its node and every descendant but
// for NodeChildrenChanged (recursive: addWatch mode 1).
type watchMode uint8

const (
	modeStandard watchMode = iota
	modePersistent
	modeRecursive
)

// modeKey names one watch of a replica's tables. Like ZooKeeper's
// WatcherModeManager, each table (data, child) keeps one mode per
// session and path: the last watch set there decides it, so a standard
// watch set on a path with a persistent one makes it one-shot, and a
// persistent one set after a recursive one stops the recursion (measured
// on 3.8.0: raw cases "persistent watch then standard data watch on one
// node", "recursive then persistent watch on one node").
type modeKey struct {
	path string
	kind watchKind
	id   int64
}

// watch registers a standard watch on the session's replica.
func (m *Machine) watch(s *session, path string, k watchKind) {
	m.watchAs(s, path, k, modeStandard)
}

// watchAs registers a watch of the given mode on the session's replica,
// replacing the mode of one the session already holds there.
func (m *Machine) watchAs(s *session, path string, k watchKind, mode watchMode) {
	r := m.replicas[s.replica]
	t := r.table(k)
	ids := t[path]
	if !slices.Contains(ids, s.id) {
		if ids == nil {
			ids = m.spareIDs()
		}
		t[path] = append(ids, s.id)
		r.watched[k] |= pathBit(path)
		r.peaks.table[k] = max(r.peaks.table[k], len(t))
	}
	m.hold(s, watchKey{path, k})
	if mode != modeStandard || len(r.modes) > 0 {
		r.setMode(modeKey{path, k, s.id}, mode)
	}
}

// setMode records a watch's mode; standard is recorded by absence, so
// that a Machine without persistent watches keeps no modes at all.
func (r *replica) setMode(key modeKey, mode watchMode) {
	if r.modes[key] == modeRecursive {
		r.recursive[key.kind]--
	}
	switch {
	case mode == modeStandard:
		delete(r.modes, key)
		if small, ok := shrunk(r.modes, &r.peaks.modes); ok {
			r.modes = small
		}
		return
	case r.modes == nil:
		r.modes = map[modeKey]watchMode{}
	}
	r.modes[key] = mode
	r.peaks.modes = max(r.peaks.modes, len(r.modes))
	if mode == modeRecursive {
		r.recursive[key.kind]++
	}
}

// addWatch is addWatch: a persistent or recursive watch in both tables
// (DataTree.addWatch), on any path, existing or not.
func (m *Machine) addWatch(s *session, r proto.AddWatch) proto.Reply {
	mode := modePersistent
	if r.Recursive {
		mode = modeRecursive
	}
	m.watchAs(s, r.Path, watchData, mode)
	m.watchAs(s, r.Path, watchChild, mode)
	return proto.Reply{}
}

// unwatch removes the session's watch of kind k on path, if it holds one.
func (m *Machine) unwatch(r *replica, s *session, path string, k watchKind) bool {
	t := r.table(k)
	ids := t[path]
	i := slices.Index(ids, s.id)
	if i < 0 {
		return false
	}
	if ids = slices.Delete(ids, i, i+1); len(ids) == 0 {
		m.unwatchPath(r, k, path)
	} else {
		t[path] = ids
	}
	m.release(s, watchKey{path, k})
	if len(r.modes) > 0 {
		r.setMode(modeKey{path, k, s.id}, modeStandard)
	}
	return true
}

// removeWatches is removeWatches (DataTree.removeWatch): the session's
// watches of a type on path, whatever their mode; ErrNoWatcher if it held
// none. Nothing fires.
func (m *Machine) removeWatches(s *session, q proto.RemoveWatches) proto.Reply {
	r := m.replicas[s.replica]
	removed := false
	if q.Type == proto.WatcherChildren || q.Type == proto.WatcherAny {
		removed = m.unwatch(r, s, q.Path, watchChild)
	}
	if q.Type == proto.WatcherData || q.Type == proto.WatcherAny {
		removed = m.unwatch(r, s, q.Path, watchData) || removed
	}
	if !removed {
		return proto.Reply{Err: fmt.Errorf("%w: %s (type: %s)", zkapi.ErrNoWatcher, q.Path, q.Type)}
	}
	return proto.Reply{}
}

// CheckWatches answers checkWatches for session id as ZooKeeper 3.8.0
// does (WatchManager.containsWatcher): nil if any session holds a watch
// of the type on path at id's replica (not only id: measured on 3.8.0,
// raw case "checkWatches and removeWatches of another session's
// watches"), else ErrNoWatcher. With a recursive watch anywhere in a
// table it looks for one on path's ancestors first, which fails with
// ErrMarshalling for a path without a slash.
func (m *Machine) CheckWatches(id int64, path string, typ proto.WatcherType) error {
	s := m.sessions[id]
	if s == nil {
		return zkapi.ErrSessionExpired
	}
	r := m.replicas[s.replica]
	var kinds []watchKind
	switch typ {
	case proto.WatcherChildren:
		kinds = []watchKind{watchChild}
	case proto.WatcherData:
		kinds = []watchKind{watchData}
	default:
		kinds = []watchKind{watchChild, watchData}
	}
	for _, k := range kinds {
		if r.recursive[k] > 0 && !strings.Contains(path, "/") {
			return fmt.Errorf("%w: no parent of %q", zkapi.ErrMarshalling, path)
		}
		if len(r.table(k)[path]) > 0 {
			return nil
		}
	}
	return fmt.Errorf("%w: %s (type: %s)", zkapi.ErrNoWatcher, path, typ)
}

// pathBit is path's bit in replica.watched: of its length and last
// byte, which tell apart the paths a trigger meets (a lock's queue's
// names share their length and differ at the end) at no hashing cost.
func pathBit(path string) uint64 {
	var last byte
	if n := len(path); n > 0 {
		last = path[n-1]
	}
	return 1 << ((uint(len(path))*31 + uint(last)) & 63)
}

// spareIDs returns an empty watcher list to reuse: a watch is set and
// fired again and again on the same few paths, and each fire deletes its
// path's list.
func (m *Machine) spareIDs() []int64 {
	if n := len(m.spare); n > 0 {
		ids := m.spare[n-1]
		m.spare = m.spare[:n-1]
		return ids
	}
	return nil
}

// unwatchPath deletes path's watcher list from r's table of kind k,
// keeping the list for spareIDs (up to spareMax of them), and rebuilds the
// table once it has shrunk well below its peak.
func (m *Machine) unwatchPath(r *replica, k watchKind, path string) {
	t := r.table(k)
	if ids, ok := t[path]; ok {
		delete(t, path)
		if len(t) == 0 {
			r.watched[k] = 0
		}
		if cap(ids) > 0 && len(m.spare) < spareMax {
			m.spare = append(m.spare, ids[:0])
		}
		if small, ok := shrunk(t, &r.peaks.table[k]); ok {
			r.setTable(k, small)
		}
	}
}

func (m *Machine) dropWatches(s *session) {
	r := m.replicas[s.replica]
	s.watches.each(func(k watchKey) {
		t := r.table(k.kind)
		ids := slices.DeleteFunc(t[k.path], func(id int64) bool { return id == s.id })
		if len(ids) == 0 {
			m.unwatchPath(r, k.kind, k.path)
		} else {
			t[k.path] = ids
		}
		if len(r.modes) > 0 {
			r.setMode(modeKey{k.path, k.kind, s.id}, modeStandard)
		}
	})
	m.watchCount -= s.watches.len()
	s.watches.reset()
}

// dispatch notifies the leader's sessions of the triggers of the current
// transaction.
func (m *Machine) dispatch() {
	if len(m.fired) == 0 {
		return // a read, or a write that failed: the call alone cost as much
	}
	m.notifyOn(0, m.fired, m.zxid)
	m.fired = m.fired[:0]
}

// notifyOn turns triggers applied on replica i into one notification per
// session, path and trigger, and removes the standard watches (one-shot);
// persistent and recursive ones stay. A deletion
// notifies a session once even if it held both a data and a child watch
// (WatchManager's suppression set).
func (m *Machine) notifyOn(i int, fired []trigger, zxid int64) {
	r := m.replicas[i]
	for _, t := range fired {
		var kinds []watchKind
		switch t.typ {
		case zkapi.EventNodeCreated, zkapi.EventNodeDataChanged:
			kinds = []watchKind{watchData}
		case zkapi.EventNodeChildrenChanged:
			kinds = []watchKind{watchChild}
		case zkapi.EventNodeDeleted:
			kinds = []watchKind{watchData, watchChild}
		}
		m.woken = m.takeWatchers(r, t, kinds, m.woken[:0])
		for _, id := range m.woken {
			s := m.sessions[id]
			if checkACL(s, t.acl, zkapi.PermRead) != nil {
				continue
			}
			m.post(s, proto.Notification{
				Zxid: zxid, Event: zkapi.Event{Type: t.typ, Path: t.path},
			})
		}
	}
}

// takeWatchers appends to ids the sessions a trigger notifies through
// the tables of kinds, each once, in increasing order, and removes the
// standard watches it fires (WatchManager.triggerWatch): those on the
// trigger's path, and the recursive ones on it and on its ancestors,
// which ignore NodeChildrenChanged.
func (m *Machine) takeWatchers(r *replica, t trigger, kinds []watchKind, ids []int64) []int64 {
	for _, k := range kinds {
		ids = m.takeAt(r, k, t.path, t.typ, true, ids)
		if r.recursive[k] == 0 {
			continue
		}
		for p := t.path; p != "/"; {
			p, _ = parentOf(p)
			ids = m.takeAt(r, k, p, t.typ, false, ids)
		}
	}
	if len(ids) > 1 { // nearly always one or none
		slices.Sort(ids)
	}
	return ids
}

// takeAt is takeWatchers on one path of one table: the trigger's own
// path (exact), or one of its ancestors.
func (m *Machine) takeAt(r *replica, k watchKind, path string, typ zkapi.EventType, exact bool, ids []int64) []int64 {
	if r.watched[k]&pathBit(path) == 0 {
		return ids // no watch on path: no need to look
	}
	t := r.table(k)
	watchers, ok := t[path]
	if !ok {
		return ids
	}
	if len(r.modes) == 0 { // standard watches only: the common case
		if exact {
			for _, id := range watchers {
				m.release(m.sessions[id], watchKey{path, k})
				ids = appendOnce(ids, id)
			}
			m.unwatchPath(r, k, path)
		}
		return ids
	}
	return m.takeModes(r, k, path, typ, exact, watchers, ids)
}

// takeModes is takeAt when some watch is persistent or recursive: out of
// line, as most runs set none.
//
//go:noinline
func (m *Machine) takeModes(r *replica, k watchKind, path string, typ zkapi.EventType, exact bool, watchers, ids []int64) []int64 {
	t := r.table(k)
	kept := watchers[:0]
	for _, id := range watchers {
		switch mode := r.modes[modeKey{path, k, id}]; {
		case mode == modeRecursive:
			if typ != zkapi.EventNodeChildrenChanged {
				ids = appendOnce(ids, id)
			}
			kept = append(kept, id)
		case !exact:
			kept = append(kept, id)
		case mode == modePersistent:
			ids = appendOnce(ids, id)
			kept = append(kept, id)
		default:
			m.release(m.sessions[id], watchKey{path, k})
			ids = appendOnce(ids, id)
		}
	}
	if len(kept) == 0 {
		m.unwatchPath(r, k, path)
	} else {
		t[path] = kept
	}
	return ids
}

// appendOnce appends id unless ids holds it: one notification per session.
func appendOnce(ids []int64, id int64) []int64 {
	if slices.Contains(ids, id) {
		return ids
	}
	return append(ids, id)
}

// setWatches re-registers a reconnecting client's watches, firing at once
// those whose node changed after the client's last zxid
// (DataTree.setWatches).
func (m *Machine) setWatches(s *session, r proto.SetWatches) {
	m.rewatch(s, r.Data, watchData, r.RelativeZxid)
	tree := m.replicas[s.replica].tree
	for _, p := range r.Exist {
		if tree[p] != nil {
			m.queue(s, zkapi.EventNodeCreated, p)
		} else {
			m.watch(s, p, watchData)
		}
	}
	m.rewatch(s, r.Child, watchChild, r.RelativeZxid)
	// Persistent watches are re-registered as they are, whatever changed
	// meanwhile: nothing fires for them (measured on 3.8.0, raw case
	// "setWatches2 fires nothing for persistent watches on changed nodes").
	for _, p := range r.Persistent {
		m.addWatch(s, proto.AddWatch{Path: p})
	}
	for _, p := range r.PersistentRecursive {
		m.addWatch(s, proto.AddWatch{Path: p, Recursive: true})
	}
}

// rewatch re-registers data or child watches on existing nodes: a node
// gone fires NodeDeleted, a node whose data (Mzxid) or children (Pzxid)
// changed after zxid fires the event the client missed.
func (m *Machine) rewatch(s *session, paths []string, k watchKind, zxid int64) {
	tree := m.replicas[s.replica].tree
	for _, p := range paths {
		n := tree[p]
		if n == nil {
			m.queue(s, zkapi.EventNodeDeleted, p)
			continue
		}
		changed, typ := n.stat.Mzxid, zkapi.EventNodeDataChanged
		if k == watchChild {
			changed, typ = n.stat.Pzxid, zkapi.EventNodeChildrenChanged
		}
		if changed > zxid {
			m.queue(s, typ, p)
		} else {
			m.watch(s, p, k)
		}
	}
}

// queue adds a notification fired by SetWatches: it stands for changes
// the client missed, not for one transaction, so it carries zxid -1.
func (m *Machine) queue(s *session, typ zkapi.EventType, path string) {
	m.post(s, proto.Notification{Zxid: -1, Event: zkapi.Event{Type: typ, Path: path}})
}

// post queues n for s, listing s for TakeNotified.
func (m *Machine) post(s *session, n proto.Notification) {
	s.outbox = append(s.outbox, n)
	m.posts++
	if !s.listed {
		s.listed = true
		m.notified = append(m.notified, s.id)
	}
}

// Watchers returns the sessions holding data (and exists) watches and child
// watches on path at replica i, in increasing order.
func (m *Machine) Watchers(i int, path string) (data, child []int64) {
	r := m.replicas[i]
	return sortedIDs(r.dataW[path]), sortedIDs(r.childW[path])
}

// WatchCount is the number of (session, path, kind) watches at replica i.
func (m *Machine) WatchCount(i int) int {
	n := 0
	for _, t := range []watchTable{m.replicas[i].dataW, m.replicas[i].childW} {
		for _, ids := range t {
			n += len(ids)
		}
	}
	return n
}

// SessionWatchCount is the number of watches session id holds at its
// replica: set and not yet fired, nor dropped by a disconnect.
func (m *Machine) SessionWatchCount(id int64) int {
	if s := m.sessions[id]; s != nil {
		return s.watches.len()
	}
	return 0
}

func sortedIDs(ids []int64) []int64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

// HeldWatches is the number of watches all sessions hold, at every
// replica: (session, path, table) triples, as SessionWatchCount counts
// them. It is kept as watches are set and go, not counted.
func (m *Machine) HeldWatches() int { return m.watchCount }

// WatchesAdded is at most how many watches req would add to those session
// id holds, so that a server can refuse a request past a cap on watches
// before anything is applied (the Machine itself has no cap). A watch the
// session holds already (same path and table) adds nothing; a getData or
// getChildren of a node missing or unreadable adds nothing, as it sets no
// watch; a SetWatches counts each path it lists once, whether or not it
// fires at once instead.
func (m *Machine) WatchesAdded(id int64, req proto.Request) int {
	s := m.sessions[id]
	if s == nil {
		return 0
	}
	switch r := req.(type) {
	case proto.Exists:
		if r.Watch {
			return m.addsWatch(s, r.Path, watchData)
		}
	case proto.GetData:
		if r.Watch && m.readable(s, r.Path) {
			return m.addsWatch(s, r.Path, watchData)
		}
	case proto.GetChildren:
		if r.Watch && m.readable(s, r.Path) {
			return m.addsWatch(s, r.Path, watchChild)
		}
	case proto.AddWatch:
		return m.addsWatch(s, r.Path, watchData) + m.addsWatch(s, r.Path, watchChild)
	case proto.SetWatches:
		return m.setWatchesAdds(s, r)
	}
	return 0
}

// addsWatch is 1 if s holds no watch on path in table k, else 0.
func (m *Machine) addsWatch(s *session, path string, k watchKind) int {
	if s.watches.has(watchKey{path, k}) {
		return 0
	}
	return 1
}

// readable reports whether a getData or getChildren of path by s would
// succeed, and so set its watch.
func (m *Machine) readable(s *session, path string) bool {
	_, err := m.readNode(s, path)
	return err == nil
}

// setWatchesAdds is WatchesAdded for a SetWatches: its distinct (path,
// table) pairs that s does not hold.
func (m *Machine) setWatchesAdds(s *session, r proto.SetWatches) int {
	seen := map[watchKey]bool{}
	count := func(paths []string, kinds ...watchKind) {
		for _, p := range paths {
			for _, k := range kinds {
				if key := (watchKey{p, k}); !seen[key] && !s.watches.has(key) {
					seen[key] = true
				}
			}
		}
	}
	count(r.Data, watchData)
	count(r.Exist, watchData)
	count(r.Child, watchChild)
	count(r.Persistent, watchData, watchChild)
	count(r.PersistentRecursive, watchData, watchChild)
	return len(seen)
}

// Watching reports whether session id holds a data or child watch on
// path.
func (m *Machine) Watching(id int64, path string) bool {
	s := m.sessions[id]
	return s != nil && (s.watches.has(watchKey{path, watchData}) || s.watches.has(watchKey{path, watchChild}))
}
