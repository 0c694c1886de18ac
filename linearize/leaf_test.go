package linearize_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLinearize_IsALeaf fails if the package links any other zksim
// package: check imports it to word its verdicts, so it must not import
// check, sim, harness or fakezk (docs/design.md, Packages).
func TestLinearize_IsALeaf(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	const self = "github.com/zksim/zksim/linearize"
	out, err := exec.Command("go", "list", "-deps", self).Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep != self && strings.HasPrefix(dep, "github.com/zksim/zksim/") {
			t.Errorf("linearize links %s", dep)
		}
	}
}
