package zkclient

import (
	"slices"
	"sort"
	"strings"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/zkapi"
)

// WatchKind is a client-side watch table: ZooKeeper clients keep exists
// watches on missing nodes apart from data watches so that SetWatches can
// re-register each correctly.
type WatchKind uint8

// Client-side watch kinds.
const (
	KindData WatchKind = iota
	KindExist
	KindChild
)

// WatchTable is a client's table of outstanding watch handles, generic
// over the handle type so that every client of a Machine (the in-process
// Conn, the simulator's clients) shares one set of rules: which handles an
// event fires, and what a reconnect re-registers.
type WatchTable[W any] struct {
	m [KindChild + 1]map[string]handles[W] // by kind, made on first use
	// taken is the room Take answers in: an event fires one handle or two
	// nearly always, and a slice of its own for each cost an allocation.
	taken [2]W
}

// handles are the handles of one path and kind, in registration order:
// nearly always one, kept without a slice of its own.
type handles[W any] struct {
	first W
	more  []W
}

func (h handles[W]) appendTo(out []W) []W { return append(append(out, h.first), h.more...) }

// Add registers a handle.
func (t *WatchTable[W]) Add(path string, k WatchKind, w W) {
	if t.m[k] == nil {
		t.m[k] = map[string]handles[W]{}
	}
	h, ok := t.m[k][path]
	if ok {
		h.more = append(h.more, w)
	} else {
		h.first = w
	}
	t.m[k][path] = h
}

// Take removes and returns the handles an event fires, in registration
// order within each kind (data, exist, child). The slice is the table's,
// valid until its next Take.
func (t *WatchTable[W]) Take(ev zkapi.Event) []W {
	var kinds []WatchKind
	switch ev.Type {
	case zkapi.EventNodeCreated, zkapi.EventNodeDataChanged:
		kinds = []WatchKind{KindData, KindExist}
	case zkapi.EventNodeChildrenChanged:
		kinds = []WatchKind{KindChild}
	case zkapi.EventNodeDeleted:
		kinds = []WatchKind{KindData, KindExist, KindChild}
	}
	clear(t.taken[:]) // the last answer's handles are no longer held
	out := t.taken[:0]
	for _, k := range kinds {
		if h, ok := t.m[k][ev.Path]; ok {
			delete(t.m[k], ev.Path)
			out = h.appendTo(out)
		}
	}
	return out
}

// TakeAll removes and returns every handle, in kind then path order.
func (t *WatchTable[W]) TakeAll() []W {
	var out []W
	for k := range t.m {
		for _, p := range sortedKeys(t.m[k]) {
			out = t.m[k][p].appendTo(out)
		}
		t.m[k] = nil
	}
	return out
}

// Each calls f for every outstanding handle, in no defined order: a
// caller that hashes them must treat them as a set.
func (t *WatchTable[W]) Each(f func(path string, k WatchKind, w W)) {
	for k, byPath := range t.m {
		if len(byPath) == 0 { // starting an iteration costs, even of nothing
			continue
		}
		for p, h := range byPath {
			f(p, WatchKind(k), h.first)
			for _, w := range h.more {
				f(p, WatchKind(k), w)
			}
		}
	}
}

// Len is the number of outstanding handles.
func (t *WatchTable[W]) Len() int {
	n := 0
	for _, byPath := range t.m {
		for _, h := range byPath {
			n += 1 + len(h.more)
		}
	}
	return n
}

// SetWatches is the request that re-registers the table after a reconnect.
func (t *WatchTable[W]) SetWatches(lastZxid int64) proto.SetWatches {
	return proto.SetWatches{
		RelativeZxid: lastZxid,
		Data:         sortedKeys(t.m[KindData]),
		Exist:        sortedKeys(t.m[KindExist]),
		Child:        sortedKeys(t.m[KindChild]),
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// PersistentTable is a client's table of persistent watch handles
// (zkapi.PersistentWatcher), generic like WatchTable, so that every
// client of a Machine routes events to them alike. A handle sees the
// events for its path and, recursive, for the nodes below it but
// NodeChildrenChanged (ZooKeeper's ZKWatchManager.addPersistentWatches).
type PersistentTable[P comparable] struct {
	m [2]map[string][]P // persistent, recursive; by path, made on first use
}

func recursiveIndex(recursive bool) int {
	if recursive {
		return 1
	}
	return 0
}

// Add registers a handle.
func (t *PersistentTable[P]) Add(path string, recursive bool, p P) {
	i := recursiveIndex(recursive)
	if t.m[i] == nil {
		t.m[i] = map[string][]P{}
	}
	t.m[i][path] = append(t.m[i][path], p)
}

// Remove unregisters a handle and returns how many handles of either
// kind remain on its path.
func (t *PersistentTable[P]) Remove(path string, recursive bool, p P) int {
	i := recursiveIndex(recursive)
	ps := slices.DeleteFunc(t.m[i][path], func(q P) bool { return q == p })
	if len(ps) == 0 {
		delete(t.m[i], path)
	} else {
		t.m[i][path] = ps
	}
	return len(t.m[0][path]) + len(t.m[1][path])
}

// Match returns the handles an event goes to: the persistent ones on its
// path, then the recursive ones on its path and each ancestor, nearest
// first, each in registration order.
func (t *PersistentTable[P]) Match(ev zkapi.Event) []P {
	if len(t.m[0])+len(t.m[1]) == 0 || ev.Path == "" || ev.Path[0] != '/' {
		return nil
	}
	out := slices.Clone(t.m[0][ev.Path])
	if ev.Type == zkapi.EventNodeChildrenChanged || len(t.m[1]) == 0 {
		return out
	}
	for p := ev.Path; ; {
		out = append(out, t.m[1][p]...)
		if p == "/" {
			return out
		}
		p = p[:max(1, strings.LastIndexByte(p, '/'))] // its parent
	}
}

// TakeAll removes and returns every handle, persistent then recursive,
// each in path order.
func (t *PersistentTable[P]) TakeAll() []P {
	var out []P
	for i := range t.m {
		for _, p := range sortedKeys(t.m[i]) {
			out = append(out, t.m[i][p]...)
		}
		t.m[i] = nil
	}
	return out
}

// Len is the number of handles.
func (t *PersistentTable[P]) Len() int {
	n := 0
	for _, byPath := range t.m {
		for _, ps := range byPath {
			n += len(ps)
		}
	}
	return n
}

// Each calls f for every handle, in no defined order.
func (t *PersistentTable[P]) Each(f func(path string, recursive bool, p P)) {
	for i, byPath := range t.m {
		for path, ps := range byPath {
			for _, p := range ps {
				f(path, i == 1, p)
			}
		}
	}
}

// Rewatch adds the table's paths to a reconnect's SetWatches (which
// becomes a setWatches2 on the wire).
func (t *PersistentTable[P]) Rewatch(sw proto.SetWatches) proto.SetWatches {
	sw.Persistent, sw.PersistentRecursive = sortedKeys(t.m[0]), sortedKeys(t.m[1])
	return sw
}

// ReplyWatch says, for a request sent with a watch and its reply's error,
// which client watch table the new watch belongs in; false if the server
// left no watch. Every client of a Machine uses it.
func ReplyWatch(req proto.Request, err error) (WatchKind, bool) {
	switch q := req.(type) {
	case proto.Exists:
		if q.Watch {
			return existsWatch(err)
		}
	case proto.GetData:
		if q.Watch {
			return KindData, err == nil
		}
	case proto.GetChildren:
		if q.Watch {
			return KindChild, err == nil
		}
	}
	return 0, false
}

// existsWatch: a data watch on an existing node, an exists watch on a
// missing one, none on a bad request.
func existsWatch(err error) (WatchKind, bool) {
	switch err {
	case nil:
		return KindData, true
	case zkapi.ErrNoNode:
		return KindExist, true
	}
	return 0, false
}
