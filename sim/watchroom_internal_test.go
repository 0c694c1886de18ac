package sim

import "testing"

// TestNewWatch_NeverGivenTwice: the handles a client makes, from its own
// room and then from the heap, are each new: a handle lives as long as
// the program keeps it.
func TestNewWatch_NeverGivenTwice(t *testing.T) {
	var c Client
	seen := map[*watch]bool{}
	for i := range 2*len(c.watchRoom) + 1 {
		w := c.newWatch()
		if seen[w] {
			t.Fatalf("handle %d was given out before", i)
		}
		seen[w] = true
		fromRoom := false
		for j := range c.watchRoom {
			fromRoom = fromRoom || w == &c.watchRoom[j]
		}
		if fromRoom != (i < len(c.watchRoom)) {
			t.Fatalf("handle %d: from the room %v, want %v", i, fromRoom, i < len(c.watchRoom))
		}
	}
}
