package fakezk_test

import (
	"testing"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/zkapi"
)

// twoClients makes a Machine with two sessions in which first's
// session creates its node, then the other's: client k's node is
// /c<k>_0, holding "c<k>_0", ephemeral.
func twoClients(t *testing.T, first int) (*machine.Machine, [2]int64) {
	t.Helper()
	m, err := machine.NewMachine(machine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var ids [2]int64
	for k := range ids {
		info, err := m.CreateSession(0, 4000)
		if err != nil {
			t.Fatal(err)
		}
		ids[k] = info.ID
	}
	for _, k := range []int{first, 1 - first} {
		name := []string{"c1_0", "c2_0"}[k]
		if r := m.Do(ids[k], proto.Create{Path: "/" + name, Data: []byte(name), Mode: zkapi.Ephemeral}); r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	return m, ids
}

// A state hashed with its clients renamed equals its mirror image (the
// state in which the clients played each other's part) hashed as it is,
// and differs from it without the renaming: what a search's symmetry
// reduction relies on.
func TestMachine_FingerprintAsMirror(t *testing.T) {
	a, ida := twoClients(t, 0) // c1 creates first
	b, idb := twoClients(t, 1) // c2 creates first
	if a.Fingerprint() == b.Fingerprint() {
		t.Fatal("the two orders hash alike without renaming")
	}
	// Sessions hash as their client's position: client k is k+1, and
	// under the swap 2-k.
	swap := &machine.Renaming{Session: positions(ida, 2, 1)}
	swap.Names[1], swap.Names[2] = '2', '1'
	same := &machine.Renaming{Session: positions(idb, 1, 2)}
	if a.FingerprintAs(swap) != b.FingerprintAs(same) {
		t.Error("a state renamed does not hash as its mirror image")
	}
	if a.FingerprintAs(same) == b.FingerprintAs(same) {
		t.Error("renaming the sessions alone makes the orders alike")
	}
}

// positions maps the two clients' sessions to the given codes, and
// every other id (no owner: 0) to itself.
func positions(ids [2]int64, first, second int64) func(int64) int64 {
	return func(id int64) int64 {
		switch id {
		case ids[0]:
			return -first
		case ids[1]:
			return -second
		}
		return id
	}
}

// childrenIn makes a Machine whose one session creates /o and then, in
// one multi, its children in the order given: the same zxids either way.
func childrenIn(t *testing.T, names ...string) *machine.Machine {
	t.Helper()
	ops := make([]zkapi.Op, len(names))
	for i, n := range names {
		ops[i] = zkapi.CreateOp{Path: "/o/" + n}
	}
	return multiIn(t, ops...)
}

// Two trees with the same children are one state when the order the
// children were added in cannot show, and two when it can: "i" and "a"
// share a bucket of /o's hash set, so they list in the order they came;
// "a" and "b" do not, so they list the same either way
// (docs/zk-semantics.md rule 13).
func TestFingerprint_ChildOrder(t *testing.T) {
	if childrenIn(t, "i", "a").Fingerprint() == childrenIn(t, "a", "i").Fingerprint() {
		t.Error("children added as i, a and as a, i hash alike, but list differently")
	}
	if childrenIn(t, "a", "b").Fingerprint() != childrenIn(t, "b", "a").Fingerprint() {
		t.Error("children added as a, b and as b, a hash apart, but list alike")
	}
}

// multiIn makes a Machine whose one session creates /o and then applies
// ops in one multi.
func multiIn(t *testing.T, ops ...zkapi.Op) *machine.Machine {
	t.Helper()
	m, err := machine.NewMachine(machine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	info, err := m.CreateSession(0, 4000)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []proto.Request{proto.Create{Path: "/o"}, proto.Multi{Ops: ops}} {
		if rep := m.Do(info.ID, r); rep.Err != nil {
			t.Fatal(rep.Err)
		}
	}
	return m
}

// The table's size is state too: /o ends with a and b, listed alike, after
// seven creations either way, but one table grew to 16 buckets (seven
// children at once) and the other did not, so later names list
// differently.
func TestFingerprint_ChildTableSize(t *testing.T) {
	create := func(n string) zkapi.Op { return zkapi.CreateOp{Path: "/o/" + n} }
	del := func(n string) zkapi.Op { return zkapi.DeleteOp{Path: "/o/" + n, Version: zkapi.AnyVersion} }
	var grown, small []zkapi.Op
	grown = append(grown, create("a"), create("b"))
	for _, n := range []string{"c1", "c2", "c3", "c4", "c5"} {
		grown = append(grown, create(n))
		small = append(small, create(n), del(n))
	}
	for _, n := range []string{"c1", "c2", "c3", "c4", "c5"} {
		grown = append(grown, del(n))
	}
	small = append(small, create("a"), create("b"))
	if multiIn(t, grown...).Fingerprint() == multiIn(t, small...).Fingerprint() {
		t.Error("a child table of 16 buckets and one of 8 hash alike")
	}
}
