// Package suitecheck holds what the runners of the clients' own test
// suites (internal/gozksuite, internal/kazoosuite) share: the serve flags
// their servers need, the recorded real-server results, and the rule
// that judges serve against them. It is used by tests only.
package suitecheck

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Compare checks serve's results against the real server's: every test
// that passes on the real server must pass on serve, unless known (named
// listName in messages) gives the reason it may not. A known test that
// passes is logged, so that its entry can go; a test missing from real,
// or a known one the suite does not have, fails.
func Compare(t testing.TB, real, serve, known map[string]string, listName string) {
	t.Helper()
	for _, name := range SortedNames(real) {
		want, got := real[name], serve[name]
		reason, isKnown := known[name]
		switch {
		case want != "pass":
			// A test the real server does not pass need not pass here.
		case got == "pass" && isKnown:
			t.Logf("%s passes: remove it from %s (%s)", name, listName, reason)
		case got != "pass" && isKnown:
			t.Logf("%s: %s, in %s: %s", name, got, listName, reason)
		case got != "pass":
			if got == "" {
				got = "missing"
			}
			t.Errorf("%s: %s on serve, pass on the real server", name, got)
		}
	}
	for _, name := range SortedNames(serve) {
		if _, ok := real[name]; !ok {
			t.Errorf("%s (%s on serve) is not in testdata/real.txt: record the real server's results", name, serve[name])
		}
	}
	for _, name := range SortedNames(known) {
		if _, ok := real[name]; !ok {
			t.Errorf("%s names %s, which the suite does not have", listName, name)
		}
	}
}

// ServeArgs is flags (each a flag and its values) as arguments for bin's
// serve; a flag serve's usage does not list fails the test.
func ServeArgs(t testing.TB, bin string, flags [][]string) []string {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "serve", "-h")
	cmd.Stderr = &stderr
	cmd.Run() // -h exits 0 or 2; the usage text is what counts
	var args []string
	for _, f := range flags {
		if !strings.Contains(stderr.String(), "\n  "+f[0]+" ") && !strings.Contains(stderr.String(), "\n  "+f[0]+"\n") {
			t.Fatalf("zksim serve has no %s flag: the suite's servers need it", f[0])
		}
		args = append(args, f...)
	}
	return args
}

// ReadResults reads a results file: "NAME RESULT" lines, # comments.
func ReadResults(t testing.TB, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, result, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("%s: line %q is not NAME RESULT", path, line)
		}
		out[name] = result
	}
	return out
}

// WriteResults writes results to path in ReadResults' form, after header
// (comment lines, each starting with "# ").
func WriteResults(t testing.TB, path, header string, results map[string]string) {
	t.Helper()
	var b strings.Builder
	b.WriteString(header)
	for _, name := range SortedNames(results) {
		fmt.Fprintf(&b, "%s %s\n", name, results[name])
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// SortedNames is m's keys in order.
func SortedNames[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// ModuleRoot is this repository's root, where go.mod is, seen from a
// package two levels below it.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", dir, err)
	}
	return dir
}

// Tail is the last 4000 bytes of b, for a log.
func Tail(b []byte) string {
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}
