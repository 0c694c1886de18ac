package expire_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestExpire_DoesNotLinkTheFake fails if package expire, or the real
// client's adapter zkapi/gozk, depends on the fake ZooKeeper: both speak
// jute to a real server through the codec (internal/wire) and the
// records (internal/proto) alone, so a tool that only kills sessions, or a
// program on a real ensemble, does not carry the in-memory server
// (issue 23, point 3).
func TestExpire_DoesNotLinkTheFake(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	for _, pkg := range []string{"github.com/zksim/zksim/expire", "github.com/zksim/zksim/zkapi/gozk"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep == "github.com/zksim/zksim/fakezk" || strings.HasPrefix(dep, "github.com/zksim/zksim/fakezk/") {
				t.Errorf("%s links %s", pkg, dep)
			}
		}
	}
}
