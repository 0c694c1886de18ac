package machine_test

import (
	"fmt"
	"testing"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/zkapi"
)

// BenchmarkMachine_ReapContainers is one container check over a tree of
// about 100k persistent nodes and a few containers: the server runs it
// under its lock every minute (issue 22: it looked at every node).
func BenchmarkMachine_ReapContainers(b *testing.B) {
	m, err := machine.NewMachine(machine.Config{})
	if err != nil {
		b.Fatal(err)
	}
	info, err := m.CreateSession(0, 10000)
	if err != nil {
		b.Fatal(err)
	}
	do := func(path string, mode zkapi.CreateMode) {
		if rep := m.Do(info.ID, proto.Create{Path: path, Mode: mode}); rep.Err != nil {
			b.Fatalf("create %s: %v", path, rep.Err)
		}
	}
	do("/b", zkapi.Persistent)
	for d := range 100 {
		do(fmt.Sprintf("/b/d%03d", d), zkapi.Persistent)
		for n := range 1000 {
			do(fmt.Sprintf("/b/d%03d/n%04d", d, n), zkapi.Persistent)
		}
	}
	for c := range 10 {
		do(fmt.Sprintf("/c%d", c), zkapi.Container)
		do(fmt.Sprintf("/c%d/x", c), zkapi.Persistent) // not empty: never reaped
	}
	for b.Loop() {
		m.ReapContainers()
	}
}

// BenchmarkMachine_LockRound is the Machine's share of one round of a
// lock queue of five sessions, as the simulator's standard workload
// drives it: each joins with a sequential ephemeral node, lists the
// queue and watches its predecessor; then each in turn writes, leaves,
// and the next is notified and lists again. One op is one round.
func BenchmarkMachine_LockRound(b *testing.B) {
	m, err := machine.NewMachine(machine.Config{})
	if err != nil {
		b.Fatal(err)
	}
	var ids [5]int64
	for i := range ids {
		info, err := m.CreateSession(0, 10000)
		if err != nil {
			b.Fatal(err)
		}
		ids[i] = info.ID
	}
	must := func(r proto.Reply) proto.Reply {
		if r.Err != nil {
			b.Fatal(r.Err)
		}
		return r
	}
	must(m.Do(ids[0], proto.Create{Path: "/locks"}))
	must(m.Do(ids[0], proto.Create{Path: "/locks/x"}))
	must(m.Do(ids[0], proto.Create{Path: "/data"}))
	var paths [5]string
	for b.Loop() {
		for i, id := range ids {
			paths[i] = must(m.Do(id, proto.Create{Path: "/locks/x/n-", Data: []byte("c1"), Mode: zkapi.EphemeralSequential})).Path
			must(m.Do(id, proto.GetChildren{Path: "/locks/x"}))
			if i > 0 {
				must(m.Do(id, proto.Exists{Path: paths[i-1], Watch: true}))
			}
		}
		for i, id := range ids {
			must(m.Do(id, proto.SetData{Path: "/data", Data: []byte("token"), Version: -1}))
			must(m.Do(id, proto.Delete{Path: paths[i], Version: -1}))
			if i+1 < len(ids) {
				m.TakeNotifications(ids[i+1])
				must(m.Do(ids[i+1], proto.GetChildren{Path: "/locks/x"}))
			}
		}
	}
}
