package netserver

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/internal/wire"
	"github.com/zksim/zksim/zkapi"
)

// These tests are internal: they compare what the server answers from the
// Machine's counts (issue 22) with the whole-tree walks it used to do,
// kept below as the reference.

// walkEphemerals is getEphemerals as a whole-tree walk (the code before
// issue 22), the reference the served answer is compared with.
func walkEphemerals(s *Server, id int64, prefix string) []string {
	all := strings.TrimFunc(prefix, func(r rune) bool { return r <= ' ' })
	out := []string{}
	walk(s.m, "/", func(p string, st zkapi.Stat) {
		if st.EphemeralOwner == id && (all == "" || all == "/" || strings.HasPrefix(p, prefix)) {
			out = append(out, p)
		}
	})
	slices.Sort(out)
	return out
}

// walk calls f for every node below path on the leader, as the server
// did for getEphemerals, getAllChildrenNumber and the four-letter words.
func walk(m *machine.Machine, path string, f func(p string, st zkapi.Stat)) {
	walkInto(m, path, func(string) bool { return true }, f)
}

// walkAllChildrenNumber counts path's descendants by walking them.
func walkAllChildrenNumber(s *Server, path string) int32 {
	n := int32(0)
	walk(s.m, path, func(string, zkapi.Stat) { n++ })
	return n
}

// walkDump is the dump four-letter word's answer as the walk built it:
// each owner's ephemerals in the walk's order.
func walkDump(s *Server) string {
	var b strings.Builder
	ids := s.m.SessionIDs()
	fmt.Fprintf(&b, "SessionTracker dump:\nSession Sets (%d)/(%d):\nephemeral nodes dump:\n", len(ids), len(ids))
	owners := map[int64][]string{}
	walk(s.m, "/", func(p string, st zkapi.Stat) {
		if st.EphemeralOwner != 0 {
			owners[st.EphemeralOwner] = append(owners[st.EphemeralOwner], p)
		}
	})
	fmt.Fprintf(&b, "Sessions with Ephemerals (%d):\n", len(owners))
	for _, id := range sortedSessions(toConnSet(owners)) {
		fmt.Fprintf(&b, "0x%x:\n", id)
		for _, p := range owners[id] {
			b.WriteString("\t" + p + "\n")
		}
	}
	fmt.Fprintf(&b, "Connections dump:\nConnections Sets (1)/(%d):\n", len(s.conns))
	return b.String()
}

// localPaths are the random steps' paths: names with '-' and '.', which
// sort before '/', so that a walk's order and a plain sort differ.
var localPaths = []string{"/a", "/a-b", "/a.b", "/a/b", "/a/b-c", "/a/b/c", "/a-b/c", "/a/b/c/d"}

// localPrefixes are getEphemerals prefixes: blank and "/" mean all.
var localPrefixes = []string{"", "/", " / ", "/a", "/a/", "/a-", "/a/b", "/a/b/c/d", "/zz"}

// TestLocal_AnswersMatchWalk applies seeded random creates (every mode),
// deletes, multis (many failing, rolled back), session closes and
// expiries, ticks and reaps, and after each compares getEphemerals,
// getAllChildrenNumber, srvr, mntr and dump with the whole-tree walks.
func TestLocal_AnswersMatchWalk(t *testing.T) {
	s, err := New(Config{Machine: machine.Config{TickMillis: 1000, ExtendedTypes: true, Followers: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.mu.Lock() // the server's clock ticks the Machine too
	defer s.mu.Unlock()
	rnd := rand.New(rand.NewPCG(22, 1))
	observer, err := s.m.CreateSession(0, 2000) // asks getAllChildrenNumber; never ends
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	var gone int64 // a session that ended: it has no ephemerals
	for step := range 1500 {
		ids, gone = liveSessions(t, s.m, rnd, ids, gone)
		what := localStep(s.m, rnd, ids)
		asked := slices.Clone(ids)
		if gone != 0 {
			asked = append(asked, gone)
		}
		if msg := compareWithWalk(s, observer.ID, asked); msg != "" {
			t.Fatalf("step %d (%s): %s", step, what, msg)
		}
	}
}

// liveSessions replaces ended sessions, so that three live, and returns
// the last that ended.
func liveSessions(t *testing.T, m *machine.Machine, rnd *rand.Rand, ids []int64, gone int64) ([]int64, int64) {
	for _, id := range ids {
		if !m.Alive(id) {
			gone = id
		}
	}
	ids = slices.DeleteFunc(ids, func(id int64) bool { return !m.Alive(id) })
	for len(ids) < 3 {
		info, err := m.CreateSession(rnd.IntN(2), 2000)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, info.ID)
	}
	return ids, gone
}

func localStep(m *machine.Machine, rnd *rand.Rand, ids []int64) string {
	id := ids[rnd.IntN(len(ids))]
	p := localPaths[rnd.IntN(len(localPaths))]
	modes := []zkapi.CreateMode{zkapi.Persistent, zkapi.Ephemeral, zkapi.EphemeralSequential, zkapi.Container, zkapi.PersistentWithTTL}
	mode := modes[rnd.IntN(len(modes))]
	ttl := int64(0)
	if mode == zkapi.PersistentWithTTL {
		ttl = 1
	}
	var req proto.Request
	switch k := rnd.IntN(20); {
	case k < 8:
		req = proto.Create{Path: p, Mode: mode, TTLMillis: ttl}
	case k < 11:
		req = proto.Delete{Path: p, Version: -1}
	case k < 15:
		req = proto.Multi{Ops: []zkapi.Op{
			zkapi.CreateOp{Path: p, Mode: mode, TTLMillis: ttl},
			zkapi.DeleteOp{Path: localPaths[rnd.IntN(len(localPaths))], Version: -1},
			zkapi.CheckOp{Path: localPaths[rnd.IntN(len(localPaths))], Version: int32(rnd.IntN(2)) - 1},
		}}
	case k == 15:
		m.CloseSession(id)
		return "close"
	case k == 16:
		m.Expire(id)
		return "expire"
	case k == 17:
		m.Tick()
		return "tick"
	default:
		m.ReapContainers()
		return "reap"
	}
	rep := m.Do(id, req)
	return fmt.Sprintf("%v: %v", req, rep.Err)
}

// compareWithWalk returns what the server answers differently from the
// walks ("" if nothing), for the sessions ids and, asked by observer,
// for every node.
func compareWithWalk(s *Server, observer int64, ids []int64) string {
	for _, id := range ids {
		for _, prefix := range localPrefixes {
			if got, want := s.ephemerals(id, prefix), walkEphemerals(s, id, prefix); !slices.Equal(got, want) {
				return fmt.Sprintf("getEphemerals(%q) of %#x = %q, want %q", prefix, id, got, want)
			}
		}
	}
	c := &conn{s: s, session: observer}
	paths := []string{"/", "/missing"}
	walk(s.m, "/", func(p string, _ zkapi.Stat) { paths = append(paths, p) })
	for _, p := range paths {
		code, body := s.allChildrenNumber(c, p)
		got := fmt.Sprint(code)
		if code == 0 {
			got = fmt.Sprint(body.(wire.IntResponse).N)
		}
		want := fmt.Sprint(walkAllChildrenNumber(s, p))
		if p == "/missing" {
			want = fmt.Sprint(proto.Code(zkapi.ErrNoNode))
		}
		if got != want {
			return fmt.Sprintf("getAllChildrenNumber(%s) = %s, want %s", p, got, want)
		}
	}
	return compareWordsWithWalk(s)
}

// compareWordsWithWalk checks srvr's and mntr's counts and dump.
func compareWordsWithWalk(s *Server) string {
	nodes, ephemerals := 1, 0
	walk(s.m, "/", func(_ string, st zkapi.Stat) {
		nodes++
		if st.EphemeralOwner != 0 {
			ephemerals++
		}
	})
	checks := []struct {
		text, field string
		want        int
	}{
		{s.srvr(0, ""), `Node count: (\d+)`, nodes},
		{s.mntr(0), `zk_znode_count\t(\d+)`, nodes},
		{s.mntr(0), `zk_ephemerals_count\t(\d+)`, ephemerals},
	}
	for _, c := range checks {
		m := regexp.MustCompile(c.field).FindStringSubmatch(c.text)
		if m == nil {
			return fmt.Sprintf("no %q in %q", c.field, c.text)
		}
		if got, _ := strconv.Atoi(m[1]); got != c.want {
			return fmt.Sprintf("%s: %d, want %d", c.field, got, c.want)
		}
	}
	if got, want := s.dump(), walkDump(s); got != want {
		return fmt.Sprintf("dump:\n%s\nwant:\n%s", got, want)
	}
	return ""
}
