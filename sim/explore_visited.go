package sim

import "math/bits"

// visitTable is the explorer's visited set: a state's fingerprint to its
// visit (depth<<16 | deviations used). It is a map[uint64]uint32 that
// does what a search needs faster than Go's map, a lookup after every
// step: open addressing with linear probing in two flat arrays, 12 bytes
// a slot at most three quarters full. Nothing is ever deleted, so a probe
// ends at the first empty slot; 0 marks a slot empty, and the key 0 is
// kept beside the arrays.
type visitTable struct {
	keys  []uint64
	vals  []uint32
	n     int  // keys in the arrays
	shift uint // 64 - log2(len(keys))
	zero  bool // the key 0 is in the set
	zeroV uint32
}

// minVisitSlots is the table's size when it is first used.
const minVisitSlots = 1 << 10

// slot is where k's probe starts: the top bits of k times an odd
// constant, which spreads keys that differ only in their high bits too.
func (t *visitTable) slot(k uint64) int { return int((k * 0x9e3779b97f4a7c15) >> t.shift) }

// get returns k's visit and whether k is in the set.
func (t *visitTable) get(k uint64) (uint32, bool) {
	if k == 0 {
		return t.zeroV, t.zero
	}
	if len(t.keys) == 0 {
		return 0, false
	}
	mask := len(t.keys) - 1
	for i := t.slot(k); ; i = (i + 1) & mask {
		switch t.keys[i] {
		case k:
			return t.vals[i], true
		case 0:
			return 0, false
		}
	}
}

// put sets k's visit to v.
func (t *visitTable) put(k uint64, v uint32) {
	if k == 0 {
		t.zero, t.zeroV = true, v
		return
	}
	if (t.n+1)*4 > len(t.keys)*3 {
		t.grow()
	}
	mask := len(t.keys) - 1
	i := t.slot(k)
	for t.keys[i] != 0 && t.keys[i] != k {
		i = (i + 1) & mask
	}
	if t.keys[i] == 0 {
		t.keys[i] = k
		t.n++
	}
	t.vals[i] = v
}

// grow doubles the table (or makes its first one) and puts every key
// back.
func (t *visitTable) grow() {
	keys, vals := t.keys, t.vals
	size := max(minVisitSlots, 2*len(keys))
	t.keys, t.vals = make([]uint64, size), make([]uint32, size)
	t.shift = uint(64 - bits.TrailingZeros(uint(size)))
	mask := size - 1
	for j, k := range keys {
		if k == 0 {
			continue
		}
		i := t.slot(k)
		for t.keys[i] != 0 {
			i = (i + 1) & mask
		}
		t.keys[i], t.vals[i] = k, vals[j]
	}
}

// reset empties the set, keeping its arrays for the next pass.
func (t *visitTable) reset() {
	clear(t.keys)
	t.n, t.zero, t.zeroV = 0, false, 0
}
