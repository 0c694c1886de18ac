package machine

import (
	"fmt"
	"maps"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// A fingerprint hashes a node's children in listing order without building
// the listing: the same hash as the listing's, on both sides of the stack
// buffer's 32 names.
func TestHashChildren_AsListing(t *testing.T) {
	for _, k := range []int{0, 1, 2, 7, 13, 32, 33, 70} {
		var n znode
		for i := range k {
			n.addChild("n-"+strconv.Itoa((i*7919)%1000), uint64(i), nil)
		}
		if got, want := n.hashChildren(nil), (*Renaming)(nil).HashChildren(n.listing(make([]string, len(n.children)))); got != want {
			t.Errorf("%d children: hashChildren %#x, the listing's hash %#x", k, got, want)
		}
	}
}

// order sorts packed numbers, or records when a rank is too big to pack:
// both give the same order, for tables of every size met here and ranks
// on both sides of the largest that packs (2^rankBits).
func TestOrder_AsSlow(t *testing.T) {
	for _, k := range []int{1, 2, 7, 13, 33, 70, 300} {
		var n znode
		for i := range k {
			n.addChild("n-"+strconv.Itoa((i*7919)%1000), uint64(i), nil)
		}
		rankBits := 64 - orderIndex - bits.Len32(uint32(n.buckets-1))
		for _, base := range []uint64{0, 1<<rankBits - uint64(k)/2, 1 << rankBits} {
			for i := range n.born {
				n.born[i].rank = base + uint64((i*31)%k) // distinct: 31 is prime to every k
			}
			got, want := n.order(nil), n.orderSlow(nil)
			if !slices.Equal(got, want) {
				t.Errorf("%d children, ranks from %#x: order %v, orderSlow %v", k, base, got, want)
			}
		}
	}
}

// A node's children stay sorted, each beside its own birth, through adds
// at the end (sequential names), adds in the middle and removes anywhere:
// checked against a map after every step of a seeded random sequence.
func TestChildren_InsertRemove(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 2))
	var n znode
	want := map[string]uint64{}
	for step := range 3000 {
		name := fmt.Sprintf("c-%03d", rng.IntN(60))
		if _, ok := want[name]; ok && rng.IntN(2) == 0 {
			if got := n.removeChild(name); got != want[name] {
				t.Fatalf("step %d: removeChild(%s) = %d, want %d", step, name, got, want[name])
			}
			delete(want, name)
		} else if !ok {
			n.insertChild(name, uint64(step), nil)
			want[name] = uint64(step)
		}
		names := slices.Sorted(maps.Keys(want))
		if !slices.Equal(n.children, names) || len(n.born) != len(names) {
			t.Fatalf("step %d: children %v (%d births), want %v", step, n.children, len(n.born), names)
		}
		for i, c := range n.children {
			if b := n.born[i]; b.rank != want[c] || b.hash != spreadHash(c) {
				t.Fatalf("step %d: child %s born %+v, want rank %d", step, c, b, want[c])
			}
		}
	}
}
