package machine

import (
	"math/rand/v2"
	"testing"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// lookupWrite skips validating a path that names a node, which holds only
// if no invalid path ever names one: creates of random paths over the
// bytes that matter (separators, dots, NUL, control and non-ASCII
// characters), sequential or not, leave only valid paths in every tree.
func TestMachine_TreePathsValid(t *testing.T) {
	m, err := NewMachine(Config{Followers: 1})
	if err != nil {
		t.Fatal(err)
	}
	info, err := m.CreateSession(0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(26, 3))
	alphabet := []string{"/", ".", "a", "-", "\x00", "\x1f", "é", "\ufff5"}
	for range 5000 {
		p := "/"
		for range rng.IntN(6) {
			p += alphabet[rng.IntN(len(alphabet))]
		}
		mode := zkapi.Persistent
		if rng.IntN(3) == 0 {
			mode = zkapi.PersistentSequential
		}
		m.Do(info.ID, proto.Create{Path: p, Mode: mode})
	}
	m.CatchUp(1, m.Zxid())
	for i, r := range m.replicas {
		if len(r.tree) < 10 {
			t.Fatalf("replica %d holds only %d nodes: the test creates too few", i, len(r.tree))
		}
		for p := range r.tree {
			if err := validatePath(p); err != nil {
				t.Errorf("replica %d holds a node at invalid path %q: %v", i, p, err)
			}
		}
	}
}
