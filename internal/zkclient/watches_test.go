package zkclient_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/zksim/zksim/internal/zkclient"
	"github.com/zksim/zksim/zkapi"
)

// watchModel is WatchTable's rules said with a map per kind: the handles
// of each path in registration order.
type watchModel [3]map[string][]int

func (m *watchModel) add(path string, k zkclient.WatchKind, w int) {
	if m[k] == nil {
		m[k] = map[string][]int{}
	}
	m[k][path] = append(m[k][path], w)
}

// take: the kinds an event fires (ZooKeeper's ZKWatchManager.materialize),
// data before exist before child.
func (m *watchModel) take(ev zkapi.Event) []int {
	kinds := map[zkapi.EventType][]zkclient.WatchKind{
		zkapi.EventNodeCreated:         {zkclient.KindData, zkclient.KindExist},
		zkapi.EventNodeDataChanged:     {zkclient.KindData, zkclient.KindExist},
		zkapi.EventNodeChildrenChanged: {zkclient.KindChild},
		zkapi.EventNodeDeleted:         {zkclient.KindData, zkclient.KindExist, zkclient.KindChild},
	}[ev.Type]
	var out []int
	for _, k := range kinds {
		out = append(out, m[k][ev.Path]...)
		delete(m[k], ev.Path)
	}
	return out
}

func (m *watchModel) paths(k zkclient.WatchKind) []string {
	ps := []string{}
	for p := range m[k] {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

func (m *watchModel) takeAll() []int {
	var out []int
	for k := range m {
		for _, p := range m.paths(zkclient.WatchKind(k)) {
			out = append(out, m[k][p]...)
		}
		m[k] = nil
	}
	return out
}

// TestWatchTable_AsTheModel: seeded random adds, events, reconnects and
// closes give the same handles, in the same order, from a WatchTable as
// from the model, and the same SetWatches and Len.
func TestWatchTable_AsTheModel(t *testing.T) {
	paths := []string{"/a", "/b", "/a/b", "/c"}
	events := []zkapi.EventType{zkapi.EventNodeCreated, zkapi.EventNodeDataChanged,
		zkapi.EventNodeChildrenChanged, zkapi.EventNodeDeleted, zkapi.EventNotWatching}
	rng := rand.New(rand.NewPCG(5, 6))
	var table zkclient.WatchTable[int]
	var model watchModel
	for step := range 20000 {
		switch op := rng.IntN(10); {
		case op < 5:
			p, k := paths[rng.IntN(len(paths))], zkclient.WatchKind(rng.IntN(3))
			table.Add(p, k, step)
			model.add(p, k, step)
		case op < 9:
			ev := zkapi.Event{Type: events[rng.IntN(len(events))], Path: paths[rng.IntN(len(paths))]}
			if got, want := table.Take(ev), model.take(ev); !slices.Equal(got, want) {
				t.Fatalf("step %d: Take(%v) = %v, want %v", step, ev, got, want)
			}
		default:
			got, want := fmt.Sprint(table.SetWatches(7)), fmt.Sprint(model.paths(0), model.paths(1), model.paths(2))
			if sw := table.SetWatches(7); fmt.Sprint(sw.Data, sw.Exist, sw.Child) != want || sw.RelativeZxid != 7 {
				t.Fatalf("step %d: SetWatches = %s, want paths %s", step, got, want)
			}
			if rng.IntN(4) == 0 {
				if got, want := table.TakeAll(), model.takeAll(); !slices.Equal(got, want) {
					t.Fatalf("step %d: TakeAll = %v, want %v", step, got, want)
				}
			}
		}
		n := 0
		for _, byPath := range model {
			for _, ws := range byPath {
				n += len(ws)
			}
		}
		if table.Len() != n {
			t.Fatalf("step %d: Len = %d, want %d", step, table.Len(), n)
		}
	}
}
