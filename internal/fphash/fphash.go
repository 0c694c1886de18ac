// Package fphash computes state fingerprints: 64-bit hashes that are the
// same in every process and binary (unlike hash/maphash, whose seed is
// random), so that a systematic exploration prunes the same states on
// every run and its counts and verdicts can be reproduced.
//
// A Hash folds values in order. For sets, whose iteration order must not
// matter (Go maps), hash each element into its own Hash and add the sums
// with Hash.Add, which is commutative (and Hash.Remove takes one back).
//
// Renaming folds ZooKeeper's values (paths, data, Stats, replies, watch
// events) with the clients renamed: internal/machine hashes its state and
// sim its clients' histories through it, so that a search treating
// identical clients as interchangeable hashes mirror images alike.
package fphash

import "math/bits"

// Hash is an order-sensitive running hash. The zero value is ready.
type Hash struct{ h uint64 }

const (
	k1 = 0xbf58476d1ce4e5b9
	k2 = 0x94d049bb133111eb
)

// mix is splitmix64's finalizer: every input bit reaches every output bit.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * k1
	z = (z ^ (z >> 27)) * k2
	return z ^ (z >> 31)
}

// Uint folds in v: the 128-bit product of the running hash and v, each
// offset by a constant, folded to 64 bits (wyhash's "mum"). A state's
// fingerprint folds thousands of values, one after the other, so the
// latency of this step is most of a fingerprint's cost: one multiply,
// where splitmix64's finalizer (mix) chains two with shifts between. Sum
// still ends with mix. The product is 0 whatever the running hash if v
// is k2 exactly (or the hash k1 exactly), which forgets what came
// before; no value a fingerprint folds (sizes, versions, zxids, times,
// text) is that constant but by a 2^-64 chance.
func (h *Hash) Uint(v uint64) {
	hi, lo := bits.Mul64(h.h^k1, v^k2)
	h.h = hi ^ lo
}

// Int folds in v.
func (h *Hash) Int(v int64) { h.Uint(uint64(v)) }

// Bool folds in b.
func (h *Hash) Bool(b bool) {
	if b {
		h.Uint(1)
	} else {
		h.Uint(2)
	}
}

// String folds in s, with its length so that "ab","c" and "a","bc" differ.
func (h *Hash) String(s string) { fold(h, s) }

// Bytes folds in b; nil and empty differ, as ZooKeeper's null and empty
// data do. Non-nil b hashes as String(string(b)).
func (h *Hash) Bytes(b []byte) {
	if b == nil {
		h.Uint(3)
		return
	}
	h.Uint(uint64(len(b)) | 1<<63)
	for len(b) >= 8 {
		h.Uint(uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56)
		b = b[8:]
	}
	var w uint64
	for i := range len(b) {
		w |= uint64(b[i]) << (8 * i)
	}
	h.Uint(w)
}

// fold folds in s and its length, as Bytes does. It is not generic over
// Bytes' []byte: a caller in another package that inlines String would
// call a generic one through its dictionary, which escape analysis does
// not see through, and move every Hash that hashed a string to the heap.
func fold(h *Hash, s string) {
	h.Uint(uint64(len(s)) | 1<<63)
	for len(s) >= 8 {
		h.Uint(uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56)
		s = s[8:]
	}
	var w uint64
	for i := range len(s) {
		w |= uint64(s[i]) << (8 * i)
	}
	h.Uint(w)
}

// Add folds in another hash's sum commutatively: for unordered sets.
func (h *Hash) Add(v uint64) { h.h += mix(v) }

// Remove takes back an Add of v: a set's hash kept up to date as its
// elements change is the one hashed from scratch (the sums wrap, so
// adding and removing in any order is exact).
func (h *Hash) Remove(v uint64) { h.h -= mix(v) }

// Sum is the hash so far.
func (h *Hash) Sum() uint64 { return mix(h.h) }
