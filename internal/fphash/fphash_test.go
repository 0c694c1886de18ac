package fphash_test

import (
	"testing"

	"github.com/zksim/zksim/internal/fphash"
)

func sum(f func(h *fphash.Hash)) uint64 {
	var h fphash.Hash
	f(&h)
	return h.Sum()
}

// The properties pruning relies on: equal inputs, equal sums; order,
// boundaries and nil-ness count, except where Add makes them not.
func TestHash_Stable(t *testing.T) {
	got := sum(func(h *fphash.Hash) { h.String("/locks/l"); h.Int(42); h.Bool(true) })
	if got != sum(func(h *fphash.Hash) { h.String("/locks/l"); h.Int(42); h.Bool(true) }) {
		t.Fatal("same input, two sums")
	}
	if got == sum(func(h *fphash.Hash) { h.String("/locks/"); h.String("l"); h.Int(42); h.Bool(true) }) {
		t.Error("string boundaries do not count")
	}
	if sum(func(h *fphash.Hash) { h.Bytes(nil) }) == sum(func(h *fphash.Hash) { h.Bytes([]byte{}) }) {
		t.Error("nil and empty bytes hash alike")
	}
	if sum(func(h *fphash.Hash) { h.Int(1); h.Int(2) }) == sum(func(h *fphash.Hash) { h.Int(2); h.Int(1) }) {
		t.Error("Int is not order-sensitive")
	}
	if sum(func(h *fphash.Hash) { h.Add(1); h.Add(2) }) != sum(func(h *fphash.Hash) { h.Add(2); h.Add(1) }) {
		t.Error("Add is not commutative")
	}
}

// A set kept up to date by Remove and Add hashes as the same set hashed
// from scratch, whatever the order of the changes.
func TestHash_Remove(t *testing.T) {
	fresh := sum(func(h *fphash.Hash) { h.Add(1); h.Add(3) })
	kept := sum(func(h *fphash.Hash) {
		h.Add(2)
		h.Add(1)
		h.Remove(2)
		h.Add(2)
		h.Add(3)
		h.Remove(2)
	})
	if kept != fresh {
		t.Errorf("set {1,3} after changes hashes %x, from scratch %x", kept, fresh)
	}
	if sum(func(h *fphash.Hash) { h.Add(5); h.Remove(5) }) != sum(func(*fphash.Hash) {}) {
		t.Error("removing the only element does not give the empty set")
	}
}

// Bytes hashes as String of the same bytes (a renamed name is hashed
// from a rewritten copy, an unrenamed one as it is), at every length
// around the 8-byte words they fold.
func TestHash_BytesAsString(t *testing.T) {
	s := "/locks/l/lock-c1_0.0-0000000003"
	for n := range len(s) + 1 {
		b := sum(func(h *fphash.Hash) { h.Bytes([]byte(s[:n])) })
		if str := sum(func(h *fphash.Hash) { h.String(s[:n]) }); b != str {
			t.Errorf("%q: Bytes %x, String %x", s[:n], b, str)
		}
	}
}

// A value folded first still counts after a thousand more: a fold that
// forgot the running hash (a product with a factor 0) would merge
// states that differ early in their fingerprints.
func TestHash_EarlyValuesCount(t *testing.T) {
	seen := map[uint64]int64{}
	for first := range int64(256) {
		got := sum(func(h *fphash.Hash) {
			h.Int(first)
			for v := range int64(1000) {
				h.Int(v)
			}
		})
		if other, ok := seen[got]; ok {
			t.Fatalf("first values %d and %d hash alike", other, first)
		}
		seen[got] = first
	}
}

// Fingerprints are compared across runs and binaries (a search's counts
// are reproducible): these values are pinned.
func TestHash_Golden(t *testing.T) {
	for _, tc := range []struct {
		got, want uint64
	}{
		{sum(func(h *fphash.Hash) { h.String("/locks/l/lock-c1_0.0-0000000003") }), 0x3493f670e08da6f7},
		{sum(func(h *fphash.Hash) { h.Bytes([]byte("c2_1")); h.Bytes(nil); h.Int(-5); h.Bool(false) }), 0x9cf38ad756c4fae},
		{sum(func(h *fphash.Hash) { h.Add(7); h.Add(9); h.Uint(1 << 63) }), 0x3e933e394ccb6627},
	} {
		if tc.got != tc.want {
			t.Errorf("got %#x, want %#x", tc.got, tc.want)
		}
	}
}
