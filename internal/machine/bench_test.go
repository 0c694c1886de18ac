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
