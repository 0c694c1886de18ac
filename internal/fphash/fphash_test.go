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
