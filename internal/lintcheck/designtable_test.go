package lintcheck_test

import (
	"flag"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/design.md's import column from go list")

// module is the import path every package of the module starts with.
const module = "github.com/zksim/zksim"

// designDoc is the page whose "## Packages" table maps every package to
// what it owns and the zksim packages it imports.
const designDoc = "docs/design.md"

// TestDesign_ImportTable: every package of the module has a row in
// docs/design.md's package table, no row names a package that does not
// exist, and each row's last column names exactly the zksim packages that
// each of its packages imports in its non-test files, as go list says.
// With -update it rewrites that column instead of failing on it.
func TestDesign_ImportTable(t *testing.T) {
	root := moduleRoot(t)
	imports := moduleImports(t, root)
	path := filepath.Join(root, designDoc)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	rows := packageRows(t, lines)
	named := map[string]bool{}
	for _, r := range rows {
		for _, p := range r.pkgs {
			named[p] = true
			if _, ok := imports[p]; !ok {
				t.Errorf("%s names %s, which is not a package of the module", designDoc, p)
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(imports)) {
		if !named[p] {
			t.Errorf("%s's package table has no row for %s (it imports %s)", designDoc, p, importCell(imports[p], ""))
		}
	}
	changed := false
	for _, r := range rows {
		if cell, ok := checkRow(t, r, imports); !ok && *update {
			lines[r.line] = r.withImports(cell)
			changed = true
		}
	}
	if changed {
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkRow compares a row's import column with what each of its packages
// imports. It returns the column the row should have and whether it has
// it; a mismatch fails the test unless -update will rewrite it.
func checkRow(t *testing.T, r tableRow, imports map[string][]string) (string, bool) {
	t.Helper()
	want, ok := imports[r.pkgs[0]]
	for _, p := range r.pkgs[1:] {
		if got, known := imports[p]; known && ok && !slices.Equal(got, want) {
			t.Errorf("%s: the row of %v says one import list for all, but %s imports %v and %s imports %v; give them rows of their own",
				designDoc, r.pkgs, r.pkgs[0], want, p, got)
			return "", true
		}
	}
	if !ok || slices.Equal(r.imports, want) {
		return "", true
	}
	cell := importCell(want, r.importText)
	if !*update {
		t.Errorf("%s: the row of %v says it imports %v; go list says %v: make its last cell %q (or run go test ./internal/lintcheck -run TestDesign_ImportTable -update)",
			designDoc, r.pkgs, r.imports, want, cell)
	}
	return cell, false
}

// moduleImports runs go list over the module and returns, for each
// package (relative to the module, "zkapi"), the sorted zksim packages
// its non-test files import.
func moduleImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, ok := relative(fields[0])
		if !ok {
			continue
		}
		deps := []string{}
		for _, f := range fields[1:] {
			if rel, ok := relative(f); ok {
				deps = append(deps, rel)
			}
		}
		slices.Sort(deps)
		imports[pkg] = deps
	}
	return imports
}

// relative is an import path of the module relative to the module, and
// whether it is one.
func relative(importPath string) (string, bool) {
	return strings.CutPrefix(importPath, module+"/")
}

// tableRow is a row of the package table: its packages, the zksim
// packages its last column names (sorted), that column's text, and the
// row's line in the page.
type tableRow struct {
	pkgs       []string
	imports    []string
	importText string
	line       int
	text       string
}

// withImports is the row's line with its last column replaced.
func (r tableRow) withImports(cell string) string {
	i := strings.LastIndex(strings.TrimSuffix(r.text, " |"), " | ")
	return r.text[:i] + " | " + cell + " |"
}

// codeSpan matches a `code` span in a table cell.
var codeSpan = regexp.MustCompile("`([^`]+)`")

// packageRows reads the table under the page's "## Packages", its rows
// whose first cell names packages in code spans.
func packageRows(t *testing.T, lines []string) []tableRow {
	t.Helper()
	start := slices.Index(lines, "## Packages")
	if start < 0 {
		t.Fatalf("%s has no ## Packages", designDoc)
	}
	var rows []tableRow
	for i := start + 1; i < len(lines) && !strings.HasPrefix(lines[i], "## "); i++ {
		cells := strings.Split(strings.Trim(lines[i], "| "), " | ")
		if !strings.HasPrefix(lines[i], "| `") || len(cells) != 3 {
			continue
		}
		r := tableRow{line: i, text: lines[i], importText: cells[2], imports: spans(cells[2])}
		r.pkgs = spans(cells[0])
		slices.Sort(r.imports)
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no package rows under ## Packages", designDoc)
	}
	return rows
}

// spans are the code spans of a cell.
func spans(cell string) []string {
	names := []string{}
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		names = append(names, m[1])
	}
	return names
}

// importCell is the import column for imports: the packages in code
// spans, or, for none, the old text if it named none ("nothing (tests
// only)") or else "nothing".
func importCell(imports []string, old string) string {
	if len(imports) == 0 {
		if old != "" && len(spans(old)) == 0 {
			return old
		}
		return "nothing"
	}
	quoted := make([]string, len(imports))
	for i, p := range imports {
		quoted[i] = "`" + p + "`"
	}
	return strings.Join(quoted, ", ")
}
