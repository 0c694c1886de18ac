package proto_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestProto_IsALeaf fails if the records link any zksim package but
// zkapi: the Machine, the codec, the clients and the real client's shim
// all import them, so they must import none of those (issue 23).
func TestProto_IsALeaf(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	const self = "github.com/zksim/zksim/internal/proto"
	out, err := exec.Command("go", "list", "-deps", self).Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep != self && dep != "github.com/zksim/zksim/zkapi" && strings.HasPrefix(dep, "github.com/zksim/zksim/") {
			t.Errorf("proto links %s", dep)
		}
	}
}
