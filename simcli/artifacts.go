package simcli

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
)

// A failure's files must stay where its hint says: a later run of the
// same command, or another shard writing into the same -out, must not
// replace the file an earlier hint points at; the hint's command must
// run the program as it was invoked; and the path must work from where
// the hint is printed, merge's included.

// failureName is the base name of a counterexample's trace and HTML
// files: the recipe, the class, the seed of the failure it came from and
// a short hash of the counterexample itself (its shape, decisions and
// trace). Another failure (another seed, another shard's, the same seed
// after the recipe changed) gets another name; the same failure found
// again gets the same name and the same bytes, so rewriting it moves no
// hint.
func failureName(recipe string, class check.Class, seed uint64, ce harness.Counterexample) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s\n%s\n%v\n", recipe, ce.Subject.Shape(), ce.Decisions)
	for _, line := range ce.Report.Result.Trace {
		fmt.Fprintln(h, line)
	}
	return fmt.Sprintf("%s-%s-seed%d-%08x", recipe, class, seed, h.Sum32())
}

// invocation is how the running program was started, which the replay
// hint's command follows.
type invocation struct {
	arg0    string // os.Args[0]
	cwd     string // the working directory; "" if unknown
	pkg     string // the main package's import path
	module  string // the main module's path; "" without build information
	version string // the main module's version: "(devel)" when built in its checkout
	test    bool   // a go test binary
	// readFile reads a go.mod, looking for the module's root; os.ReadFile.
	readFile func(string) ([]byte, error)
}

// currentInvocation is this process's invocation.
func currentInvocation() invocation {
	inv := invocation{arg0: os.Args[0], readFile: os.ReadFile}
	inv.cwd, _ = os.Getwd()
	if bi, ok := debug.ReadBuildInfo(); ok {
		inv.pkg, inv.test = strings.CutSuffix(bi.Path, ".test")
		inv.module, inv.version = bi.Main.Path, bi.Main.Version
	}
	// A main package's test binary has the package's own path.
	inv.test = inv.test || strings.HasSuffix(filepath.Base(inv.arg0), ".test")
	return inv
}

// command is the command that runs the program again, from where it was
// started. A binary the go command built for one use (go run's, or a
// test's, under a go-build directory) is named by the go run that builds
// it: "go run PKG@VERSION" for a released module, else "go run ./DIR"
// with DIR the main package's directory from the working directory (a
// test's from the module's root, where the README's commands run); any
// other binary (installed, or built with go build -o) as it was invoked.
func (inv invocation) command() string {
	if !goBuilt(inv.arg0) || inv.module == "" {
		return inv.arg0
	}
	if inv.version != "" && inv.version != "(devel)" {
		return "go run " + inv.pkg + "@" + inv.version
	}
	rel, ok := strings.CutPrefix(inv.pkg, inv.module)
	if !ok || (rel != "" && rel[0] != '/') {
		return inv.arg0
	}
	if root := inv.moduleRoot(); root != "" && !inv.test {
		if dir, err := filepath.Rel(inv.cwd, filepath.Join(root, filepath.FromSlash(rel))); err == nil {
			return "go run " + localDir(filepath.ToSlash(dir))
		}
	}
	return "go run " + localDir(strings.TrimPrefix(rel, "/"))
}

// localDir is dir as a go run argument: "." or "./dir" ("../dir" as is),
// so that the go command reads it as a directory, not an import path.
func localDir(dir string) string {
	switch {
	case dir == "" || dir == ".":
		return "."
	case strings.HasPrefix(dir, "../"):
		return dir
	}
	return "./" + dir
}

// goBuilt reports whether the binary at path is one the go command built
// for one use: go run's and go test's live under a go-build directory
// (the build's temporary directory, or the build cache from Go 1.24).
func goBuilt(path string) bool {
	for _, elem := range strings.Split(filepath.ToSlash(path), "/") {
		if strings.HasPrefix(elem, "go-build") {
			return true
		}
	}
	return false
}

// moduleRoot is the directory of the go.mod of inv's module, from cwd
// upwards; "" if cwd is not inside it.
func (inv invocation) moduleRoot() string {
	if inv.cwd == "" || inv.readFile == nil {
		return ""
	}
	for dir := inv.cwd; ; {
		if b, err := inv.readFile(filepath.Join(dir, "go.mod")); err == nil {
			if modulePath(b) == inv.module {
				return dir
			}
			return "" // another module's
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// modulePath is the module line's path of a go.mod.
func modulePath(gomod []byte) string {
	sc := bufio.NewScanner(strings.NewReader(string(gomod)))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// withTraceFromSummary is s as a shard writes it to the -summary file
// at path: its first failure's trace also named relative to that file's
// directory, which merge, run elsewhere, resolves against the path it
// reads the summary from.
func withTraceFromSummary(s summary, path string) summary {
	if s.First == nil || s.First.Trace == "" {
		return s
	}
	trace, err1 := filepath.Abs(s.First.Trace)
	dir, err2 := filepath.Abs(filepath.Dir(path))
	if err1 != nil || err2 != nil {
		return s
	}
	rel, err := filepath.Rel(dir, trace)
	if err != nil {
		return s
	}
	first := *s.First
	first.TraceFromSummary = filepath.ToSlash(rel)
	s.First = &first
	return s
}

// resolveTrace is s as read from path by merge: its first failure's
// trace as a path from merge's working directory (relative if path is),
// when the shard named it relative to its summary.
func resolveTrace(s summary, path string) summary {
	if s.First == nil || s.First.TraceFromSummary == "" {
		return s
	}
	first := *s.First
	first.Trace = filepath.Join(filepath.Dir(path), filepath.FromSlash(first.TraceFromSummary))
	first.TraceFromSummary = ""
	s.First = &first
	return s
}
