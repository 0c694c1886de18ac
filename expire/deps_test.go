package expire_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestExpire_DoesNotLinkTheFake fails if package expire depends on the
// fake ZooKeeper: it speaks the wire protocol to a real server, through
// the codec (internal/wire) and the records (zkapi/proto) alone, so a
// tool that only kills sessions does not carry the in-memory server
// (issue 23, point 3).
func TestExpire_DoesNotLinkTheFake(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/zksim/zksim/expire").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "github.com/zksim/zksim/fakezk" || strings.HasPrefix(dep, "github.com/zksim/zksim/fakezk/") {
			t.Errorf("expire links %s", dep)
		}
	}
}
