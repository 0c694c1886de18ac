package fakezk

import (
	"sort"

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
	m [KindChild + 1]map[string][]W // by kind, made on first use
}

// Add registers a handle.
func (t *WatchTable[W]) Add(path string, k WatchKind, w W) {
	if t.m[k] == nil {
		t.m[k] = map[string][]W{}
	}
	t.m[k][path] = append(t.m[k][path], w)
}

// Take removes and returns the handles an event fires, in registration
// order within each kind (data, exist, child).
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
	var out []W
	for _, k := range kinds {
		ws, ok := t.m[k][ev.Path]
		if !ok {
			continue
		}
		delete(t.m[k], ev.Path)
		if out == nil {
			out = ws // no longer the table's: returned as it is
		} else {
			out = append(out, ws...)
		}
	}
	return out
}

// TakeAll removes and returns every handle, in kind then path order.
func (t *WatchTable[W]) TakeAll() []W {
	var out []W
	for k := range t.m {
		for _, p := range sortedKeys(t.m[k]) {
			out = append(out, t.m[k][p]...)
		}
		t.m[k] = nil
	}
	return out
}

// Each calls f for every outstanding handle, in no defined order: a
// caller that hashes them must treat them as a set.
func (t *WatchTable[W]) Each(f func(path string, k WatchKind, w W)) {
	for k, byPath := range t.m {
		for p, ws := range byPath {
			for _, w := range ws {
				f(p, WatchKind(k), w)
			}
		}
	}
}

// Len is the number of outstanding handles.
func (t *WatchTable[W]) Len() int {
	n := 0
	for _, byPath := range t.m {
		for _, ws := range byPath {
			n += len(ws)
		}
	}
	return n
}

// SetWatches is the request that re-registers the table after a reconnect.
func (t *WatchTable[W]) SetWatches(lastZxid int64) SetWatches {
	return SetWatches{
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
