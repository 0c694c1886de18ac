package lintcheck_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The one flag a test file may define: golden files are re-recorded with
// go test ./PKG -run TEST -update, in every package (docs/testing.md).
// Any other flag, a -rewrite or a -golden, would be a second convention.
const goldenFlag = "update"

// nameArg is, for each package-level definer of the flag package, the
// index of the argument that holds the flag's name.
var nameArg = map[string]int{
	"Bool": 0, "String": 0, "Int": 0, "Int64": 0, "Uint": 0, "Uint64": 0,
	"Float64": 0, "Duration": 0, "Func": 0, "BoolFunc": 0,
	"BoolVar": 1, "StringVar": 1, "IntVar": 1, "Int64Var": 1, "UintVar": 1,
	"Uint64Var": 1, "Float64Var": 1, "DurationVar": 1, "TextVar": 1, "Var": 1,
}

// TestGoldenFlags_OnlyUpdate parses every _test.go file of the module
// (testdata and other modules' copies left out) and fails on any flag a
// test defines other than the bool -update.
func TestGoldenFlags_OnlyUpdate(t *testing.T) {
	root := moduleRoot(t)
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return skipDir(root, path, d.Name())
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files++
		for _, p := range checkFile(filepath.ToSlash(rel), src) {
			t.Error(p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("only %d test files under %s: the walk is wrong", files, root)
	}
}

// TestGoldenFlags_Planted checks the check: each planted file must give
// exactly the problems listed, and a test file without flags none.
func TestGoldenFlags_Planted(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string // substrings, one per problem, in order
	}{
		{"update bool", `var update = flag.Bool("update", false, "rewrite testdata")`, nil},
		{"update bool var", `var u bool; func init() { flag.BoolVar(&u, "update", false, "") }`, nil},
		{"no flags", `func TestX(t *testing.T) {}`, nil},
		{"rewrite", `var rewrite = flag.Bool("rewrite", false, "")`, []string{`-rewrite`}},
		{"golden string", `var g = flag.String("golden", "", "")`, []string{`-golden`}},
		{"update as string", `var u = flag.String("update", "", "")`, []string{`flag.String defines -update`}},
		{"bool var regen", `var r bool; func init() { flag.BoolVar(&r, "regen", false, "") }`, []string{`-regen`}},
		{"name not literal", `const n = "update"; var u = flag.Bool(n, false, "")`, []string{"not a string literal"}},
		{"flag set is fine", `var fs = flag.NewFlagSet("x", flag.ContinueOnError); var v = fs.Bool("v", false, "")`, nil},
		{"two problems", `var a = flag.Bool("record", false, ""); var b = flag.Int("n", 0, "")`, []string{`-record`, `-n`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := "package x_test\n\nimport (\n\t\"flag\"\n\t\"testing\"\n)\n\nvar _ = testing.Short\nvar _ = flag.Parse\n\n" + tc.body + "\n"
			checkPlanted(t, src, tc.want)
		})
	}
	t.Run("renamed import", func(t *testing.T) {
		src := "package x_test\n\nimport fl \"flag\"\n\nvar r = fl.Bool(\"rewrite\", false, \"\")\nvar u = fl.Bool(\"update\", false, \"\")\n"
		checkPlanted(t, src, []string{`-rewrite`})
	})
	t.Run("dot import", func(t *testing.T) {
		src := "package x_test\n\nimport . \"flag\"\n\nvar r = Bool(\"rewrite\", false, \"\")\n"
		checkPlanted(t, src, []string{`-rewrite`})
	})
	t.Run("no flag import", func(t *testing.T) {
		src := "package x_test\n\ntype f struct{}\n\nfunc (f) Bool(string, bool, string) *bool { return nil }\n\nvar flag f\nvar r = flag.Bool(\"rewrite\", false, \"\")\n"
		checkPlanted(t, src, nil)
	})
}

func checkPlanted(t *testing.T, src string, want []string) {
	t.Helper()
	got := checkFile("planted_test.go", []byte(src))
	if len(got) != len(want) {
		t.Fatalf("problems %q, want %d matching %q", got, len(want), want)
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("problem %d is %q, want it to mention %q", i, got[i], w)
		}
	}
}

// checkFile returns one line per flag definition in src that breaks the
// convention, or a parse error.
func checkFile(name string, src []byte) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return []string{err.Error()}
	}
	local, ok := flagImport(f)
	if !ok {
		return nil
	}
	var problems []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fn, ok := definer(call, local)
		if !ok {
			return true
		}
		if p := judge(fn, call.Args[nameArg[fn]]); p != "" {
			problems = append(problems, fmt.Sprintf("%s: %s", fset.Position(call.Pos()), p))
		}
		return true
	})
	return problems
}

// flagImport is the name the file gives the flag package ("." for a dot
// import), and whether it imports it at all.
func flagImport(f *ast.File) (string, bool) {
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p != "flag" {
			continue
		}
		if imp.Name == nil {
			return "flag", true
		}
		return imp.Name.Name, imp.Name.Name != "_"
	}
	return "", false
}

// definer reports which flag-package definer call calls, if any.
func definer(call *ast.CallExpr, local string) (string, bool) {
	var fn string
	switch f := call.Fun.(type) {
	case *ast.SelectorExpr:
		pkg, ok := f.X.(*ast.Ident)
		if !ok || pkg.Name != local {
			return "", false
		}
		fn = f.Sel.Name
	case *ast.Ident:
		if local != "." {
			return "", false
		}
		fn = f.Name
	default:
		return "", false
	}
	i, ok := nameArg[fn]
	return fn, ok && len(call.Args) > i
}

// judge says what is wrong with a flag defined by flag.fn with name arg.
func judge(fn string, arg ast.Expr) string {
	lit, ok := arg.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return fmt.Sprintf("flag.%s: the flag name is not a string literal, so it cannot be checked", fn)
	}
	name, _ := strconv.Unquote(lit.Value)
	switch {
	case name != goldenFlag:
		return fmt.Sprintf("flag.%s defines -%s: a test may define only the bool -%s (golden files: go test ./PKG -run TEST -update; docs/testing.md)", fn, name, goldenFlag)
	case fn != "Bool" && fn != "BoolVar":
		return fmt.Sprintf("flag.%s defines -%s: it must be a bool (flag.Bool)", fn, name)
	}
	return ""
}

// skipDir leaves out what go test never builds as part of this module:
// testdata, hidden and underscore directories, and nested modules.
func skipDir(root, path, name string) error {
	if path == root {
		return nil
	}
	if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return filepath.SkipDir
	}
	if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
		return filepath.SkipDir
	}
	return nil
}

// moduleRoot is the directory of the module's go.mod, above this package.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for !slices.Contains(dirNames(dir), "go.mod") {
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
	return dir
}

func dirNames(dir string) []string {
	entries, _ := os.ReadDir(dir)
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names
}
