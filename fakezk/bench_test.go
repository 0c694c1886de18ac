package fakezk_test

import (
	"testing"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/zkapi"
)

// BenchmarkMachine_CreateDelete measures the core alone: one create+delete
// pair per iteration, no locking, no client.
func BenchmarkMachine_CreateDelete(b *testing.B) {
	m, _ := machine.NewMachine(machine.Config{})
	info, _ := m.CreateSession(0, 10000)
	create := proto.Create{Path: "/n", Mode: zkapi.Persistent}
	del := proto.Delete{Path: "/n", Version: -1}
	for b.Loop() {
		if r := m.Do(info.ID, create); r.Err != nil {
			b.Fatal(r.Err)
		}
		if r := m.Do(info.ID, del); r.Err != nil {
			b.Fatal(r.Err)
		}
	}
}

func BenchmarkMachine_Get(b *testing.B) {
	m, _ := machine.NewMachine(machine.Config{})
	info, _ := m.CreateSession(0, 10000)
	m.Do(info.ID, proto.Create{Path: "/n", Data: []byte("data")})
	get := proto.GetData{Path: "/n"}
	for b.Loop() {
		if r := m.Do(info.ID, get); r.Err != nil {
			b.Fatal(r.Err)
		}
	}
}
