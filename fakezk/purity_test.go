package fakezk_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPackage_IsPure enforces docs/design.md's rule for fakezk: no wall clock,
// no global randomness, no I/O and no goroutines in the package (tests
// excepted). Determinism of every reply depends on it. The one exception
// is clock.go's reading of the host's clock for node times, which a
// Config.EpochMillis turns off (issue 26: a default Server stamps nodes
// as a real server does).
func TestPackage_IsPure(t *testing.T) {
	banned := map[string]bool{
		"time": true, "math/rand": true, "math/rand/v2": true, "os": true,
		"net": true, "io": true, "crypto/rand": true, "unsafe": true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); banned[p] && (p != "time" || name != "clock.go") {
				t.Errorf("%s imports %q", fset.Position(imp.Pos()), p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if g, ok := n.(*ast.GoStmt); ok {
				t.Errorf("%s starts a goroutine", fset.Position(g.Pos()))
			}
			return true
		})
	}
}
