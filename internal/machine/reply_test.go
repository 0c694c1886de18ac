package machine_test

import (
	"testing"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// Do fills each reply in place (Machine.apply), a field at a time: a
// reply must carry its own request's fields and nothing of the one
// before it, whichever came first. Each request follows one that set
// other fields (a path, data, children, results, an error), and its
// whole reply is compared, as the trace prints it.
func TestDo_ReplyHasOnlyItsFields(t *testing.T) {
	m, err := machine.NewMachine(machine.Config{TickMillis: 1000, SortChildren: true})
	if err != nil {
		t.Fatal(err)
	}
	info, err := m.CreateSession(0, 4000)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		req  proto.Request
		want string
	}{
		{proto.Create{Path: "/a", Data: []byte("x")}, "z=2 OK path=/a"},
		{proto.GetData{Path: "/a"}, `z=2 OK data="x" stat={c=2 m=2 p=2 t=0/0 v=0 cv=0 av=0 eph=0x0 dl=1 nc=0}`},
		{proto.Exists{Path: "/none"}, "z=2 NoNode"},
		{proto.GetChildren{Path: "/a"}, "z=2 OK stat={c=2 m=2 p=2 t=0/0 v=0 cv=0 av=0 eph=0x0 dl=1 nc=0} children=[]"},
		{proto.Create{Path: "/a"}, "z=3 NodeExists"},
		{proto.Multi{Ops: []zkapi.Op{zkapi.CheckOp{Path: "/a", Version: 0}}}, "z=4 OK [0]OK"},
		{proto.SetData{Path: "/a", Data: []byte("y"), Version: -1}, "z=5 OK stat={c=2 m=5 p=2 t=0/0 v=1 cv=0 av=0 eph=0x0 dl=1 nc=0}"},
		{proto.Sync{Path: "/a"}, "z=5 OK path=/a"},
		{proto.Delete{Path: "/a", Version: -1}, "z=6 OK"},
		{proto.GetData{Path: "/a"}, "z=6 NoNode"},
		{proto.Ping{}, "z=6 OK"},
	}
	for i, s := range steps {
		if got := m.Do(info.ID, s.req).String(); got != s.want {
			t.Errorf("step %d, %T: reply %q, want %q", i, s.req, got, s.want)
		}
	}
}

// Listings, multi results and stored data come many to an allocation
// (the Machine's slabs), so each must have no room past its length: a
// caller that appends to or writes into what it was given changes
// nothing else, neither the reply after it nor a node's data.
func TestDo_RepliesApart(t *testing.T) {
	m := newMachine(t)
	id := newSession(t, m)
	for _, p := range []string{"/d", "/d/a", "/d/b", "/e", "/e/c"} {
		m.Do(id, proto.Create{Path: p, Data: []byte(p)})
	}
	d := m.Do(id, proto.GetChildren{Path: "/d"}).Children
	e := m.Do(id, proto.GetChildren{Path: "/e"}).Children
	if cap(d) != len(d) {
		t.Fatalf("a listing of %d has room for %d", len(d), cap(d))
	}
	_ = append(d, "x", "y")
	if len(e) != 1 || e[0] != "c" {
		t.Errorf("after an append to /d's listing, /e's is %q, want [c]", e)
	}
	r1 := m.Do(id, proto.Multi{Ops: []zkapi.Op{zkapi.CheckOp{Path: "/d", Version: -1}}}).Results
	r2 := m.Do(id, proto.Multi{Ops: []zkapi.Op{zkapi.CheckOp{Path: "/e", Version: -1}}}).Results
	if cap(r1) != len(r1) {
		t.Fatalf("a multi's %d results have room for %d", len(r1), cap(r1))
	}
	_ = append(r1, zkapi.OpResult{Err: zkapi.ErrNoNode})
	if len(r2) != 1 || r2[0].Err != nil {
		t.Errorf("after an append to one multi's results, the next's are %+v", r2)
	}
	data := []byte("/d/a")
	m.Do(id, proto.SetData{Path: "/d/a", Data: data, Version: -1})
	data[0] = 'X' // the caller's bytes were copied
	for _, p := range []string{"/d/a", "/d/b", "/e/c"} {
		if got := string(m.Do(id, proto.GetData{Path: p}).Data); got != p {
			t.Errorf("%s holds %q, want %q", p, got, p)
		}
	}
}
