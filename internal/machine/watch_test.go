package machine_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/zkapi"
)

func newMachine(t testing.TB) *machine.Machine {
	t.Helper()
	m, err := machine.NewMachine(machine.Config{SortChildren: true})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func newSession(t testing.TB, m *machine.Machine) int64 {
	t.Helper()
	info, err := m.CreateSession(0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	return info.ID
}

// watchStep is one request of TestMachine_WatchCounts and what it must
// add (WatchesAdded, asked before it) and leave (the watcher's count
// and the Machine's).
type watchStep struct {
	by          int // 0: the watcher, 1: the other session
	req         proto.Request
	adds, holds int
}

// TestMachine_WatchCounts: WatchesAdded counts only the watches a request
// would add (a re-set watch, a failed getData add nothing), and the counts
// go down as watches fire, are removed and their session closes.
func TestMachine_WatchCounts(t *testing.T) {
	m := newMachine(t)
	ids := [2]int64{newSession(t, m), newSession(t, m)}
	for i, st := range []watchStep{
		{0, proto.Exists{Path: "/a", Watch: true}, 1, 1},
		{0, proto.Exists{Path: "/a", Watch: true}, 0, 1},
		{0, proto.GetData{Path: "/a", Watch: true}, 0, 1},    // no node: no watch
		{0, proto.GetChildren{Path: "/", Watch: true}, 1, 2}, //
		{0, proto.GetChildren{Path: "/", Watch: true}, 0, 2},
		{1, proto.Create{Path: "/a"}, 0, 0}, // fires both
		{0, proto.GetData{Path: "/a", Watch: true}, 1, 1},
		{0, proto.AddWatch{Path: "/a"}, 1, 2}, // the data watch is held
		{0, proto.AddWatch{Path: "/b", Recursive: true}, 2, 4},
		{1, proto.SetData{Path: "/a", Version: -1}, 0, 4}, // persistent: stays
		{0, proto.RemoveWatches{Path: "/b", Type: proto.WatcherAny}, 0, 2},
		{0, proto.SetWatches{Data: []string{"/a", "/c"}, Exist: []string{"/c"}, Child: []string{"/a"}}, 1, 3},
	} {
		if got := m.WatchesAdded(ids[st.by], st.req); got != st.adds {
			t.Errorf("step %d: WatchesAdded(%v) = %d, want %d", i, st.req, got, st.adds)
		}
		if rep := m.Do(ids[st.by], st.req); rep.Err != nil && rep.Err != zkapi.ErrNoNode {
			t.Fatalf("step %d: %v: %v", i, st.req, rep.Err)
		}
		if got, held := m.SessionWatchCount(ids[0]), m.HeldWatches(); got != st.holds || held != st.holds {
			t.Errorf("step %d: after %v the watcher holds %d watches and the Machine %d, want %d", i, st.req, got, held, st.holds)
		}
	}
	m.CloseSession(ids[0])
	if n := m.HeldWatches(); n != 0 {
		t.Errorf("after the watcher closed the Machine holds %d watches, want 0", n)
	}
}

// TestMachine_WatchTablesShrink: once most watches have gone (fired, or
// their session closed), the tables, modes and the session's own set are
// rebuilt smaller (their peaks reset), and the spare lists stay few; the
// Machine goes on watching as before.
func TestMachine_WatchTablesShrink(t *testing.T) {
	const paths = 4000
	m := newMachine(t)
	w, other := newSession(t, m), newSession(t, m)
	for i := range paths {
		p := fmt.Sprintf("/p%d", i)
		m.Do(w, proto.Exists{Path: p, Watch: true})
		if i%8 == 0 {
			m.Do(w, proto.AddWatch{Path: p + "/q"})
		}
	}
	for i := range paths {
		m.Do(other, proto.Create{Path: fmt.Sprintf("/p%d", i)}) // fires the exists watch
	}
	data, _, _, session, spare := machine.WatchPeaks(m, 0, w)
	if data >= paths/2 || session >= paths/2 || spare > 256 {
		t.Errorf("after %d of %d watches fired: peaks data %d, session %d, %d spare lists; want under %d, %d and at most 256",
			paths, paths*5/4, data, session, spare, paths/2, paths/2)
	}
	m.CloseSession(w)
	data, child, modes, _, spare := machine.WatchPeaks(m, 0, w)
	if data >= 1024 || child >= 1024 || modes >= 1024 || spare > 256 {
		t.Errorf("after every watch went: peaks data %d, child %d, modes %d, %d spare lists; want under 1024 each, at most 256",
			data, child, modes, spare)
	}
	m.Do(other, proto.Exists{Path: "/x", Watch: true})
	m.Do(other, proto.Create{Path: "/x"})
	if n := m.TakeNotifications(other); len(n) != 1 || n[0].Event.Path != "/x" {
		t.Errorf("a watch set after the tables shrank: notifications %v, want NodeCreated /x", n)
	}
}

// BenchmarkMachine_WatchMemory sets 1M exists watches, 1,000 on distinct
// paths for each of 1,000 sessions, as serve's issue 22 measured, closes
// every session, and reports the heap in use (MiB) with the watches set
// and after they are all gone: a Machine that gives memory back keeps
// about what it held before the watches.
func BenchmarkMachine_WatchMemory(b *testing.B) {
	const sessions, each = 1000, 1000
	for b.Loop() {
		base := heapInuse()
		m := newMachine(b)
		ids := make([]int64, sessions)
		for i := range ids {
			ids[i] = newSession(b, m)
			for j := range each {
				m.Do(ids[i], proto.Exists{Path: fmt.Sprintf("/w/%d/%d", i, j), Watch: true})
			}
		}
		set := heapInuse()
		for _, id := range ids {
			m.CloseSession(id)
		}
		kept := heapInuse()
		runtime.KeepAlive(m)
		b.ReportMetric(mib(set-base), "MiB-set")
		b.ReportMetric(mib(kept-base), "MiB-kept")
	}
}

func heapInuse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

func mib(n uint64) float64 { return float64(int64(n)) / (1 << 20) }
