package main

import (
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
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

// recipes are the packages whose code ships to users' real ensembles:
// they reach ZooKeeper only through zkapi, so the code the harness tests
// is the code that runs (docs/design.md, "Two import rules").
var recipes = []string{
	"github.com/zksim/zksim/lock",
	"github.com/zksim/zksim/rwlock",
	"github.com/zksim/zksim/election",
	"github.com/zksim/zksim/barrier",
	"github.com/zksim/zksim/semaphore",
	"github.com/zksim/zksim/recipe",
	"github.com/zksim/zksim/zoo",
}

// notForRecipes are what a recipe must not link: the fake, the
// simulator and the real client.
var notForRecipes = []string{
	"github.com/zksim/zksim/fakezk",
	"github.com/zksim/zksim/sim",
	"github.com/zksim/zksim/harness",
	"github.com/go-zookeeper/zk",
}

// TestRecipes_LinkOnlyZkapi fails if a recipe depends on the fake, the
// simulator or go-zookeeper.
func TestRecipes_LinkOnlyZkapi(t *testing.T) {
	for _, r := range recipes {
		for _, dep := range goList(t, "-deps", r) {
			for _, p := range notForRecipes {
				if dep == p || strings.HasPrefix(dep, p+"/") {
					t.Errorf("%s links %s", r, dep)
				}
			}
		}
	}
}

// leafOnly maps each recipe package of the lock family and the barrier to
// the only module packages it may link besides itself: the leaf recipe
// (descriptors and the Lease interface), the queue mechanics and zkapi.
// The leaf links zkapi alone. So no recipe imports another (issue 23:
// rwlock, semaphore and election imported lock for its descriptor).
var leafOnly = map[string][]string{
	"github.com/zksim/zksim/recipe":    {"github.com/zksim/zksim/zkapi"},
	"github.com/zksim/zksim/lock":      recipeDeps,
	"github.com/zksim/zksim/rwlock":    recipeDeps,
	"github.com/zksim/zksim/semaphore": recipeDeps,
	"github.com/zksim/zksim/election":  recipeDeps,
	"github.com/zksim/zksim/barrier":   recipeDeps,
}

// recipeDeps are the module packages a recipe may link.
var recipeDeps = []string{
	"github.com/zksim/zksim/zkapi",
	"github.com/zksim/zksim/recipe",
	"github.com/zksim/zksim/internal/queue",
}

// TestRecipes_LinkOnlyTheLeaf fails if a recipe package links a module
// package other than zkapi, the leaf recipe and internal/queue, or the
// leaf anything but zkapi.
func TestRecipes_LinkOnlyTheLeaf(t *testing.T) {
	const module = "github.com/zksim/zksim/"
	for _, r := range slices.Sorted(maps.Keys(leafOnly)) {
		for _, dep := range goList(t, "-deps", r) {
			if dep != r && strings.HasPrefix(dep, module) && !slices.Contains(leafOnly[r], dep) {
				t.Errorf("%s links %s, want only %v", r, dep, leafOnly[r])
			}
		}
	}
}

// TestReadme_LayoutNamesEveryPackage fails when a package of the module
// is missing from the README's layout table, or the table names a
// package path that does not exist, so the table follows the folders.
func TestReadme_LayoutNamesEveryPackage(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "\n## Layout\n")
	if !ok {
		t.Fatal("README.md has no ## Layout section")
	}
	table, _, _ = strings.Cut(table, "\n\n###")
	named := map[string]bool{}
	for _, line := range strings.Split(table, "\n") {
		if first, _, ok := strings.Cut(strings.TrimPrefix(line, "| "), " | "); ok && strings.HasPrefix(line, "| `") {
			for _, m := range codeSpan.FindAllStringSubmatch(first, -1) {
				named[m[1]] = true
			}
		}
	}
	const module = "github.com/zksim/zksim/"
	pkgs := goList(t, module+"...")
	have := map[string]bool{}
	for _, p := range pkgs {
		rel := strings.TrimPrefix(p, module)
		have[rel] = true
		if !named[rel] {
			t.Errorf("README layout table does not name package %s", rel)
		}
	}
	for _, n := range slices.Sorted(maps.Keys(named)) {
		if isPackagePath(n) && !have[n] {
			t.Errorf("README layout table names %s, which is not a package", n)
		}
	}
}

// codeSpan matches a `code` span in a table cell.
var codeSpan = regexp.MustCompile("`([^`]+)`")

// isPackagePath says whether a name in the table's first column is meant
// as a Go package (not a script, a folder of docs or a workflow file).
func isPackagePath(n string) bool {
	return !strings.Contains(n, ".") && !strings.HasPrefix(n, "scripts/") && !strings.HasSuffix(n, "/")
}
