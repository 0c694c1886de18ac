package fakezk_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/fakehook"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/zkapi"
)

// docs/zk-semantics.md rule 7, ZOOKEEPER-3249: from 3.6.0 the wrapped counter is never
// stored, so every create after 2^31-1 gets 2147483647 again.
func TestSequence_OverflowPins(t *testing.T) {
	srv := newServer(t, fakezk.Config{Overflow: fakezk.OverflowPin})
	c := connect(t, srv, fakezk.ConnOptions{})
	mustCreate(t, c, "/q", zkapi.Persistent)
	fakehook.Inspect(srv, func(m *machine.Machine) { m.SetSequence("/q", math.MaxInt32-1) })

	want := []string{"/q/a-2147483646", "/q/a-2147483647"}
	for _, w := range want {
		if got := mustCreate(t, c, "/q/a-", zkapi.EphemeralSequential); got != w {
			t.Fatalf("got %s, want %s", got, w)
		}
	}
	if _, err := c.Create(ctx, "/q/a-", nil, zkapi.EphemeralSequential); !errors.Is(err, zkapi.ErrNodeExists) {
		t.Fatalf("create past 2^31-1 with the same prefix: %v, want NodeExists", err)
	}
	if got := mustCreate(t, c, "/q/b-", zkapi.EphemeralSequential); got != "/q/b-2147483647" {
		t.Fatalf("another prefix got %s, want the pinned number again", got)
	}
}

// docs/zk-semantics.md rule 7: the documented behaviour (servers up to 3.5.x) wraps to
// -2147483648, printed by Java's %010d with the sign before the padding.
func TestSequence_OverflowWraps(t *testing.T) {
	srv := newServer(t, fakezk.Config{Overflow: fakezk.OverflowWrap})
	c := connect(t, srv, fakezk.ConnOptions{})
	mustCreate(t, c, "/q", zkapi.Persistent)
	fakehook.Inspect(srv, func(m *machine.Machine) { m.SetSequence("/q", math.MaxInt32) })
	for _, w := range []string{"/q/a-2147483647", "/q/a--2147483648", "/q/a--2147483647"} {
		if got := mustCreate(t, c, "/q/a-", zkapi.PersistentSequential); got != w {
			t.Fatalf("got %s, want %s", got, w)
		}
	}
	fakehook.Inspect(srv, func(m *machine.Machine) { m.SetSequence("/q", -3) })
	if got := mustCreate(t, c, "/q/n", zkapi.PersistentSequential); got != "/q/n-000000003" {
		t.Fatalf("got %s, want Java's %%010d of -3", got)
	}
}

func TestSetSequence_MissingNode(t *testing.T) {
	m, _ := machine.NewMachine(machine.Config{})
	if err := m.SetSequence("/nope", 5); !errors.Is(err, zkapi.ErrNoNode) {
		t.Fatalf("got %v, want NoNode", err)
	}
}

// docs/zk-semantics.md rule 13: with a Seed, the fake shuffles every listing from
// it, the same way every time for the same seed (older trace files).
func TestChildren_SeededShuffle(t *testing.T) {
	list := func(seed uint64, sorted bool) [][]string {
		srv := newServer(t, fakezk.Config{Seed: seed, SortChildren: sorted})
		c := connect(t, srv, fakezk.ConnOptions{})
		mustCreate(t, c, "/d", zkapi.Persistent)
		for range 8 {
			mustCreate(t, c, "/d/n-", zkapi.PersistentSequential)
		}
		var out [][]string
		for range 4 {
			kids, _, err := c.Children(ctx, "/d")
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, kids)
		}
		return out
	}
	a, b, other := list(1, false), list(1, false), list(2, false)
	if !equal(a, b) {
		t.Fatalf("same seed, different orders:\n%v\n%v", a, b)
	}
	if equal(a, other) {
		t.Fatalf("seeds 1 and 2 gave the same orders: %v", a)
	}
	shuffled := false
	for _, l := range a {
		shuffled = shuffled || !sortedStrings(l)
	}
	if !shuffled {
		t.Fatalf("children never came back shuffled: %v", a)
	}
	for _, l := range list(1, true) {
		if !sortedStrings(l) {
			t.Fatalf("SortChildren gave %v", l)
		}
	}
}

func equal(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return false
			}
		}
	}
	return true
}

func sortedStrings(s []string) bool {
	for i := 1; i < len(s); i++ {
		if s[i-1] > s[i] {
			return false
		}
	}
	return true
}

// docs/zk-semantics.md rule 13: by default children come in the real
// server's order, its hash set's, the same at every call; a leaf's list is
// empty, not nil. internal/conformance's children-order scenario checks
// the order against ZooKeeper itself.
func TestChildren_ServerOrder(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	c := connect(t, srv, fakezk.ConnOptions{})
	mustCreate(t, c, "/d", zkapi.Persistent)
	kids, _, err := c.Children(ctx, "/d")
	if err != nil || kids == nil || len(kids) != 0 {
		t.Fatalf("a leaf's children: %#v, %v; want an empty list", kids, err)
	}
	for range 4 {
		mustCreate(t, c, "/d/n-", zkapi.PersistentSequential)
	}
	want := []string{"n-0000000002", "n-0000000001", "n-0000000003", "n-0000000000"} // measured on 3.8.0
	for range 3 {
		kids, _, err := c.Children(ctx, "/d")
		if err != nil || !slices.Equal(kids, want) {
			t.Fatalf("children %v, %v; want %v", kids, err, want)
		}
	}
}

// The server's own nodes list as on a fresh 3.8.0 (measured): DataTree
// adds quota, then config, to /zookeeper's set.
func TestChildren_ZookeeperNode(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	c := connect(t, srv, fakezk.ConnOptions{})
	kids, _, err := c.Children(ctx, "/zookeeper")
	if want := []string{"config", "quota"}; err != nil || !slices.Equal(kids, want) {
		t.Fatalf("children of /zookeeper: %v, %v; want %v", kids, err, want)
	}
}
