package main

import (
	"os/exec"
	"strings"
	"testing"
)

// testOnly are the packages no command may link: the testing package
// (and its subpackages), rapid, and zksim's own test helpers. They belong
// in tests; a binary that links them carries their flags and their weight
// (issue 13, point 4).
var testOnly = []string{
	"testing",
	"pgregory.net/rapid",
	"github.com/zksim/zksim/zktest",
	"github.com/zksim/zksim/harness/harnesstest",
}

// TestCommands_LinkNoTestCode runs `go list -deps` for every command
// under cmd/ and fails if one depends on a test-only package.
func TestCommands_LinkNoTestCode(t *testing.T) {
	mains := goList(t, "-f", "{{if eq .Name \"main\"}}{{.ImportPath}}{{end}}", "github.com/zksim/zksim/cmd/...")
	if len(mains) == 0 {
		t.Fatal("go list found no commands under cmd/")
	}
	for _, cmd := range mains {
		for _, dep := range goList(t, "-deps", cmd) {
			if isTestOnly(dep) {
				t.Errorf("%s links %s", cmd, dep)
			}
		}
	}
}

func isTestOnly(pkg string) bool {
	for _, p := range testOnly {
		if pkg == p || strings.HasPrefix(pkg, p+"/") {
			return true
		}
	}
	return false
}

// goList runs go list with args and returns its non-empty output lines.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", strings.Join(args, " "), err)
	}
	return strings.Fields(string(out))
}
