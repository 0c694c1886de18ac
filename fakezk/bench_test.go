package fakezk_test

import (
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/zkapi"
)

// BenchmarkMachine_CreateDelete measures the core alone: one create+delete
// pair per iteration, no locking, no client.
func BenchmarkMachine_CreateDelete(b *testing.B) {
	m, _ := fakezk.NewMachine(fakezk.Config{})
	info, _ := m.CreateSession(0, 10000)
	create := fakezk.Create{Path: "/n", Mode: zkapi.Persistent}
	del := fakezk.Delete{Path: "/n", Version: -1}
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
	m, _ := fakezk.NewMachine(fakezk.Config{})
	info, _ := m.CreateSession(0, 10000)
	m.Do(info.ID, fakezk.Create{Path: "/n", Data: []byte("data")})
	get := fakezk.GetData{Path: "/n"}
	for b.Loop() {
		if r := m.Do(info.ID, get); r.Err != nil {
			b.Fatal(r.Err)
		}
	}
}
