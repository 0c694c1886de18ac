package machine

import (
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
