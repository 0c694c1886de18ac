package machine

import (
	"math/bits"
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
		if got, want := n.hashChildren(nil), (*Renaming)(nil).HashChildren(n.listing()); got != want {
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
