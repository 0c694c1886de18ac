package fakezk_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/zkapi"
)

// A session's watches and ephemerals are kept compactly while few; a
// session with many (past that form's size) must keep every rule: one
// notification per deleted node, watches gone once fired or the
// connection dropped, every ephemeral deleted when the session ends (in
// ZooKeeper's order, that of a Java hash set of their paths: checked
// against the real server by internal/conformance's TestCloseOrder_Real).
func TestMachine_ManyWatchesAndEphemerals(t *testing.T) {
	const n = 40
	m, err := machine.NewMachine(machine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	owner, _ := m.CreateSession(0, 10000)
	watcher, _ := m.CreateSession(0, 10000)
	if r := m.Do(owner.ID, proto.Create{Path: "/d"}); r.Err != nil {
		t.Fatal(r.Err)
	}
	var paths []string
	for i := n - 1; i >= 0; i-- { // created out of path order
		p := fmt.Sprintf("/d/e%02d", i)
		paths = append(paths, p)
		if r := m.Do(owner.ID, proto.Create{Path: p, Mode: zkapi.Ephemeral}); r.Err != nil {
			t.Fatal(r.Err)
		}
		m.Do(watcher.ID, proto.Exists{Path: p, Watch: true})
		m.Do(watcher.ID, proto.GetChildren{Path: p, Watch: true})
	}
	slices.Sort(paths)
	if got := m.SessionWatchCount(watcher.ID); got != 2*n {
		t.Fatalf("watches held: %d, want %d", got, 2*n)
	}
	for _, p := range paths[:5] {
		if r := m.Do(owner.ID, proto.Delete{Path: p, Version: -1}); r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	if got := len(m.TakeNotifications(watcher.ID)); got != 5 {
		t.Errorf("notifications for 5 deletes: %d, want 5", got)
	}
	if got := m.SessionWatchCount(watcher.ID); got != 2*(n-5) {
		t.Errorf("watches held after 5 fired: %d, want %d", got, 2*(n-5))
	}
	m.CloseSession(owner.ID)
	var deleted []string
	for _, nt := range m.TakeNotifications(watcher.ID) {
		deleted = append(deleted, nt.Event.Path)
	}
	if !slices.Equal(slices.Sorted(slices.Values(deleted)), paths[5:]) {
		t.Errorf("closing deleted:\n%v\nwant, in some order:\n%v", deleted, paths[5:])
	}
	if kids := m.Children("/d"); len(kids) != 0 {
		t.Errorf("children left after the owner closed: %v", kids)
	}
	if got := m.WatchCount(0); got != 0 {
		t.Errorf("server still holds %d watches", got)
	}
}

// Watches a dropped connection loses are gone from the server's tables,
// however many the session held.
func TestMachine_DetachDropsManyWatches(t *testing.T) {
	m, err := machine.NewMachine(machine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := m.CreateSession(0, 10000)
	for i := range 40 {
		m.Do(s.ID, proto.Exists{Path: fmt.Sprintf("/x%02d", i), Watch: true})
	}
	m.Detach(s.ID)
	if got := m.WatchCount(0); got != 0 {
		t.Errorf("server still holds %d watches after the detach", got)
	}
	if got := m.SessionWatchCount(s.ID); got != 0 {
		t.Errorf("session still counts %d watches after the detach", got)
	}
}
