package machine

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// This test is internal: it checks the descendant counts of every
// replica's tree, followers included, which no public method shows.

// countPaths are the paths the random steps use: three levels, so that a
// count changes on more than the parent.
var countPaths = []string{"/a", "/a/b", "/a/b/c", "/a/d", "/e", "/e/f", "/e/f/g"}

// TestCounts_MatchWalk applies seeded random creates (every mode, TTL and
// container included), deletes, multis (many of which fail and roll
// back), session closes and expiries, ticks that reap and follower
// catch-ups, and after each checks Descendants, NodeCount, Ephemerals,
// EphemeralCount and the reaper's candidates against a brute-force look
// at the trees.
func TestCounts_MatchWalk(t *testing.T) {
	for seed := range uint64(20) {
		rnd := rand.New(rand.NewPCG(seed, 22))
		m, err := NewMachine(Config{TickMillis: 100, ContainerCheckTicks: 1, Followers: 2, ExtendedTypes: true})
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for step := range 300 {
			ids = keepSessions(t, m, rnd, ids)
			what := countStep(m, rnd, ids)
			if msg := checkCounts(m); msg != "" {
				t.Fatalf("seed %d step %d (%s): %s", seed, step, what, msg)
			}
		}
	}
}

// keepSessions replaces the sessions that ended, so three are live.
func keepSessions(t *testing.T, m *Machine, rnd *rand.Rand, ids []int64) []int64 {
	ids = slices.DeleteFunc(ids, func(id int64) bool { return !m.Alive(id) })
	for len(ids) < 3 {
		info, err := m.CreateSession(rnd.IntN(3), 200) // two ticks: a detached one expires soon
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, info.ID)
	}
	return ids
}

// countStep applies one random input and says what it was.
func countStep(m *Machine, rnd *rand.Rand, ids []int64) string {
	id := ids[rnd.IntN(len(ids))]
	p := countPaths[rnd.IntN(len(countPaths))]
	switch k := rnd.IntN(20); {
	case k < 7:
		req := randomCreate(rnd, p)
		return req.String() + ": " + errText(m.Do(id, req).Err)
	case k < 10:
		req := proto.Delete{Path: p, Version: -1}
		return req.String() + ": " + errText(m.Do(id, req).Err)
	case k < 14:
		req := randomMulti(rnd)
		return req.String() + ": " + errText(m.Do(id, req).Err)
	case k == 14:
		m.CloseSession(id)
		return "close"
	case k == 15:
		m.Detach(id) // expires on a later tick
		return "detach"
	case k < 18:
		m.Tick()
		return "tick"
	default:
		m.CatchUp(1+rnd.IntN(2), m.Zxid())
		return "catch up"
	}
}

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

func randomCreate(rnd *rand.Rand, p string) proto.Create {
	modes := []zkapi.CreateMode{
		zkapi.Persistent, zkapi.Ephemeral, zkapi.PersistentSequential, zkapi.EphemeralSequential,
		zkapi.Container, zkapi.PersistentWithTTL,
	}
	req := proto.Create{Path: p, Mode: modes[rnd.IntN(len(modes))]}
	if req.Mode == zkapi.PersistentWithTTL {
		req.TTLMillis = int64(1 + rnd.IntN(300))
	}
	return req
}

// randomMulti is one to four creates, deletes and checks; a check of
// version 0 or a create of an existing node fails it, and it rolls back.
func randomMulti(rnd *rand.Rand) proto.Multi {
	ops := make([]zkapi.Op, 1+rnd.IntN(4))
	for i := range ops {
		p := countPaths[rnd.IntN(len(countPaths))]
		switch rnd.IntN(3) {
		case 0:
			c := randomCreate(rnd, p)
			ops[i] = zkapi.CreateOp{Path: c.Path, Mode: c.Mode, TTLMillis: c.TTLMillis}
		case 1:
			ops[i] = zkapi.DeleteOp{Path: p, Version: -1}
		default:
			ops[i] = zkapi.CheckOp{Path: p, Version: int32(rnd.IntN(2)) - 1}
		}
	}
	return proto.Multi{Ops: ops}
}

// checkCounts compares the kept counts with a brute-force look at the
// trees, and returns what differs ("" if nothing).
func checkCounts(m *Machine) string {
	for i, r := range m.replicas {
		for p, n := range r.tree {
			if want := below(r.tree, p); n.desc != want {
				return fmtDiff("replica", i, p, int(n.desc), int(want))
			}
		}
	}
	if got, want := m.NodeCount(), len(m.leader().tree); got != want {
		return fmtDiff("NodeCount", 0, "/", got, want)
	}
	for p := range m.leader().tree {
		if got, _ := m.Descendants(p); got != below(m.leader().tree, p) {
			return fmtDiff("Descendants", 0, p, int(got), int(below(m.leader().tree, p)))
		}
	}
	owned := ownedEphemerals(m)
	for _, id := range m.SessionIDs() {
		if got := m.Ephemerals(id); !slices.Equal(got, owned[id]) {
			return fmt.Sprintf("Ephemerals(%#x) = %q, want %q", id, got, owned[id])
		}
	}
	if got, want := m.EphemeralCount(), countOwned(owned); got != want {
		return fmtDiff("EphemeralCount", 0, "/", got, want)
	}
	return checkReapers(m)
}

// checkReapers compares the reaper's candidates with the leader's
// container and TTL nodes.
func checkReapers(m *Machine) string {
	var want []string
	for p, n := range m.leader().tree {
		if owner := n.stat.EphemeralOwner; owner == containerOwner || isTTLOwner(owner) {
			want = append(want, p)
		}
	}
	slices.Sort(want)
	if got := slices.Sorted(maps.Keys(m.reapers)); !slices.Equal(got, want) {
		return fmt.Sprintf("reapers %q, want %q", got, want)
	}
	return ""
}

// below counts the nodes of tree whose path starts with p's.
func below(tree map[string]*znode, p string) int32 {
	prefix := p + "/"
	if p == "/" {
		prefix = "/"
	}
	n := int32(0)
	for q := range tree {
		if q != p && strings.HasPrefix(q, prefix) {
			n++
		}
	}
	return n
}

// ownedEphemerals lists, sorted, each owner's ephemerals on the leader as
// clients see the owner (containers and TTL nodes show none).
func ownedEphemerals(m *Machine) map[int64][]string {
	out := map[int64][]string{}
	for p, n := range m.leader().tree {
		if owner := n.view().EphemeralOwner; owner != 0 {
			out[owner] = append(out[owner], p)
		}
	}
	for _, paths := range out {
		slices.Sort(paths)
	}
	return out
}

func countOwned(owned map[int64][]string) int {
	n := 0
	for _, paths := range owned {
		n += len(paths)
	}
	return n
}

func fmtDiff(what string, replica int, path string, got, want int) string {
	return fmt.Sprintf("%s (replica %d) of %s: got %d, want %d", what, replica, path, got, want)
}
