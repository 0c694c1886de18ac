package fakezk_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zksim/zksim/internal/proto"

	"pgregory.net/rapid"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/zkapi"
)

// step is one input to a Machine: a request from session index who, or a
// follower catch-up (catchUp > 0), or a tick (tick).
type step struct {
	who     int
	req     proto.Request
	catchUp int
	tick    bool
}

func genSteps(t *rapid.T, followers int) []step {
	paths := []string{"/a", "/b", "/a/c", "/a/s-0000000001"}
	steps := make([]step, rapid.IntRange(1, 60).Draw(t, "steps"))
	for i := range steps {
		who := rapid.IntRange(0, 2).Draw(t, "session")
		p := rapid.SampledFrom(paths).Draw(t, "path")
		var req proto.Request
		switch rapid.IntRange(0, 8).Draw(t, "op") {
		case 0:
			req = proto.Create{Path: p, Mode: zkapi.CreateMode(rapid.IntRange(0, 4).Draw(t, "mode"))}
		case 1:
			req = proto.Create{Path: "/a/s-", Mode: zkapi.EphemeralSequential}
		case 2:
			req = proto.Delete{Path: p, Version: -1}
		case 3:
			req = proto.SetData{Path: p, Data: []byte("x"), Version: -1}
		case 4:
			req = proto.Exists{Path: p, Watch: true}
		case 5:
			req = proto.GetChildren{Path: "/a", Watch: true}
		case 6:
			req = proto.GetData{Path: p, Watch: true}
		case 7:
			steps[i] = step{catchUp: rapid.IntRange(1, followers).Draw(t, "follower")}
			continue
		default:
			steps[i] = step{tick: true}
			continue
		}
		steps[i] = step{who: who, req: req}
	}
	return steps
}

// run applies steps to m, with three sessions spread over the servers, and
// returns each session's stream: notifications and replies in the order
// its client receives them.
func run(t *rapid.T, m *machine.Machine, steps []step) [][]string {
	var ids []int64
	for i := range 3 {
		info, err := m.CreateSession(i%(m.Config().Followers+1), 4000)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, info.ID)
	}
	streams := make([][]string, len(ids))
	for _, s := range steps {
		switch {
		case s.tick:
			m.Tick()
		case s.catchUp > 0:
			m.CatchUp(s.catchUp, m.Zxid())
		default:
			r := m.Do(ids[s.who], s.req)
			for i, id := range ids {
				for _, n := range m.TakeNotifications(id) {
					streams[i] = append(streams[i], fmt.Sprintf("event z=%d %v", n.Zxid, n.Event))
				}
			}
			streams[s.who] = append(streams[s.who], fmt.Sprintf("reply z=%d %s -> %v", r.Zxid, s.req, r))
		}
	}
	return streams
}

// docs/zk-semantics.md rule 17: a client sees events and replies in zxid order, so it
// sees a watch event before the new state, on the leader and on followers.
func TestMachine_SessionStreamsInZxidOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m, _ := machine.NewMachine(machine.Config{Followers: 2})
		for who, stream := range run(t, m, genSteps(t, 2)) {
			last := int64(-1)
			for i, line := range stream {
				var z int64
				fmt.Sscanf(line[strings.Index(line, "z=")+2:], "%d", &z)
				if z < last {
					t.Fatalf("session %d: zxid %d after %d at %d:\n%s", who, z, last, i, strings.Join(stream, "\n"))
				}
				last = z
			}
		}
	})
}

// The same seed and inputs give the same outputs, byte for byte; another
// seed may only change the order of children.
func TestMachine_Deterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Uint64().Draw(t, "seed")
		steps := genSteps(t, 2)
		out := func(seed uint64) string {
			m, _ := machine.NewMachine(machine.Config{Seed: seed, Followers: 2})
			return fmt.Sprint(run(t, m, steps))
		}
		if a, b := out(seed), out(seed); a != b {
			t.Fatalf("same seed, different outputs:\n%s\n%s", a, b)
		}
	})
}
