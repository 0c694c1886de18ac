package conformance_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// closeOrderScript: s1 creates n ephemerals and deletes every fourth,
// then closes while s2's recursive watch looks on; the order of the
// NodeDeleted events is the order of a Java hash set of their absolute
// paths (fakezk's closeOrder).
func closeOrderScript(n int) string {
	lines := []string{"s2 addwatch / recursive"}
	for i := range n {
		lines = append(lines, fmt.Sprintf("s1 create /e%02d \"\" ephemeral", i))
	}
	for i := 0; i < n; i += 4 {
		lines = append(lines, fmt.Sprintf("s1 delete /e%02d", i))
	}
	return strings.Join(append(lines, "s1 close"), "\n")
}

// TestCloseOrder_Real compares the order in which a closing session's
// ephemerals are deleted, on the real server and on fakezk, under one
// root, for sets whose tables have 2 to 64 buckets.
func TestCloseOrder_Real(t *testing.T) {
	skipUnderRace(t)
	real := newReal(t)
	for _, n := range []int{2, 3, 7, 13, 20, 40} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			root := uniqueRoot("close")
			script := closeOrderScript(n)
			f := fakeServer(7)
			defer f.srv.Close()
			want, got := runScript(t, real, script, root), runScript(t, f, script, root)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("close order differs (-real +fake):\n%s", diff)
			}
		})
	}
}
