package main

import (
	"maps"
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
	"github.com/zksim/zksim/internal/zktest",
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
	named := map[string]bool{}
	for _, row := range layoutRows(t) {
		for _, n := range row.names {
			named[n] = true
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

// layoutRow is a row of the README's layout table: the names in its
// first column, and its card column.
type layoutRow struct {
	names []string
	card  string
}

// layoutRows reads the table under the README's "## Layout", the rows
// whose first cell names something in code spans.
func layoutRows(t *testing.T) []layoutRow {
	t.Helper()
	var rows []layoutRow
	for _, line := range strings.Split(docSection(t, "README.md", "## Layout"), "\n") {
		cells := strings.Split(line, " | ")
		if !strings.HasPrefix(line, "| `") || len(cells) < 3 {
			continue
		}
		row := layoutRow{card: strings.TrimSpace(cells[1])}
		for _, m := range codeSpan.FindAllStringSubmatch(cells[0], -1) {
			row.names = append(row.names, m[1])
		}
		rows = append(rows, row)
	}
	return rows
}

// cardParts are the top-level parts the design card names, which the
// layout table's card column maps packages to; "beyond" is what the
// card does not name.
var cardParts = []string{"zkapi", "fakezk", "lock", "rwlock", "sim", "linearize", "cmd"}

// TestReadme_LayoutCardColumn: each package of the layout table belongs to
// one part the card names, or is marked beyond it; each part holds at
// least one package; a package at a card name's path (zkapi, lock, ...,
// and cmd/...) belongs to that part.
func TestReadme_LayoutCardColumn(t *testing.T) {
	held := map[string]int{}
	for _, row := range layoutRows(t) {
		if !slices.ContainsFunc(row.names, isPackagePath) {
			continue
		}
		if row.card != "beyond" && !slices.Contains(cardParts, row.card) {
			t.Errorf("layout row %v: card %q, want one of %v or beyond", row.names, row.card, cardParts)
		}
		held[row.card]++
		for _, n := range row.names {
			if top, _, _ := strings.Cut(n, "/"); slices.Contains(cardParts, top) && top != row.card && isPackagePath(n) {
				t.Errorf("layout row %v: %s is under the card's %s, the row says %q", row.names, n, top, row.card)
			}
		}
	}
	for _, p := range cardParts {
		if held[p] == 0 {
			t.Errorf("no package of the layout table is the card's %s", p)
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
