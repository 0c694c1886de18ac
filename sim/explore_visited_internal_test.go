package sim

import (
	"math/rand/v2"
	"testing"
)

// The visited table answers as a Go map would, across growth, a pass's
// reset, keys that share their probe's start, and the key 0.
func TestVisitTable_ActsAsAMap(t *testing.T) {
	var tab visitTable
	rng := rand.New(rand.NewPCG(1, 2))
	for pass := range 3 {
		tab.reset()
		want := map[uint64]uint32{}
		for i := range 20000 {
			var k uint64
			switch i % 4 {
			case 0:
				k = rng.Uint64()
			case 1:
				k = uint64(rng.IntN(64)) << 58 // the same low bits: probes collide
			case 2:
				k = uint64(rng.IntN(3)) // 0 among them
			default:
				for k = range want { // an update of a key in the set
					break
				}
			}
			v := uint32(rng.Uint64())
			if i%3 == 0 {
				tab.put(k, v)
				want[k] = v
			}
			got, ok := tab.get(k)
			w, wok := want[k]
			if got != w || ok != wok {
				t.Fatalf("pass %d, op %d: key %#x: got %d,%v, want %d,%v", pass, i, k, got, ok, w, wok)
			}
		}
		for k, w := range want {
			if got, ok := tab.get(k); !ok || got != w {
				t.Fatalf("pass %d: key %#x: got %d,%v, want %d", pass, k, got, ok, w)
			}
		}
		n := len(want)
		if _, ok := want[0]; ok {
			n--
		}
		if tab.n != n {
			t.Fatalf("pass %d: %d keys in the arrays for %d in the set", pass, tab.n, n)
		}
	}
}
