package machine_test

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// banned are the imports that would let the outside world into a reply:
// the wall clock, global randomness, I/O. The Machine's determinism (same
// inputs, same replies, same Fingerprint) depends on keeping them out.
var banned = map[string]bool{
	"time": true, "math/rand": true, "math/rand/v2": true, "os": true,
	"net": true, "io": true, "crypto/rand": true, "unsafe": true,
}

// pure are the packages of this module the Machine may depend on; each of
// them is held to the same rule as the Machine itself.
var pure = map[string]bool{
	"github.com/zksim/zksim/internal/machine": true,
	"github.com/zksim/zksim/zkapi":            true,
	"github.com/zksim/zksim/internal/proto":   true,
	"github.com/zksim/zksim/internal/fphash":  true,
}

// listedPackage is the part of `go list -json` this test reads.
type listedPackage struct {
	ImportPath string
	Dir        string
	Standard   bool
	GoFiles    []string
}

// TestPackage_IsPure proves from the build graph, not from a list of
// files, that the Machine is a pure state machine: `go list -deps` must
// reach no package of this module outside the pure set, and no file of a
// pure package may import the wall clock, randomness or I/O, or start a
// goroutine. Standard packages are reached only through imports that pass
// that check.
func TestPackage_IsPure(t *testing.T) {
	pkgs := listDeps(t)
	seen := map[string]bool{}
	for _, p := range pkgs {
		if p.Standard {
			continue
		}
		if !pure[p.ImportPath] {
			t.Errorf("the Machine depends on %s, which is not in the pure set", p.ImportPath)
			continue
		}
		seen[p.ImportPath] = true
		for _, name := range p.GoFiles {
			checkFile(t, filepath.Join(p.Dir, name))
		}
	}
	if !seen["github.com/zksim/zksim/internal/machine"] {
		t.Fatalf("go list did not list the machine package itself: %v", pkgs)
	}
}

// listDeps runs `go list -deps -json` on this package (tests excluded).
func listDeps(t *testing.T) []listedPackage {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command("go", "list", "-deps", "-json=ImportPath,Dir,Standard,GoFiles", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listedPackage
	for dec := json.NewDecoder(strings.NewReader(string(out))); ; {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
}

// checkFile reports a banned import or a go statement in one source file.
func checkFile(t *testing.T, name string) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); banned[p] {
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
