package gozksuite_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"github.com/zksim/zksim/internal/suitecheck"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/real.txt from TestSuite_Real")

// module is the go-zookeeper version whose suite runs (go.mod requires it).
const module = "github.com/go-zookeeper/zk"

// harnessFiles are the module's Java cluster starter, replaced on serve.
var harnessFiles = []string{"server_help_test.go", "server_java_test.go"}

// superDigest is the suite's super user, password "test" (its Java config).
const superDigest = "super:D/InIHSb7yEEbrWz8b9l71RjZJU="

// serveFeatureFlags are the serve flags for the suite's Java config
// (server_java_test.go: superDigest, extendedTypesEnabled,
// emulate353TTLNodes; zoo.cfg: reconfigEnabled, 4lw.commands.whitelist=*,
// serve's -4lw '*'). A flag serve lacks fails the test.
var serveFeatureFlags = [][]string{
	{"-4lw", "*"},
	{"-reconfig"},
	{"-super-digest", superDigest},
	{"-extended-types"},
	{"-emulate353-ttl"},
}

// waitingFor lists tests that pass on the real server and may fail on
// serve, each with the missing feature; a listed test that passes is
// reported, so that it can be removed. Empty: every test that passes on
// 3.8.0 must pass on serve.
var waitingFor = map[string]string{}

func TestSuite_Serve(t *testing.T) {
	if testing.Short() {
		t.Skip("go-zookeeper's suite takes minutes: skipped with -short")
	}
	root := suitecheck.ModuleRoot(t)
	modDir := moduleDir(t, root)
	work := t.TempDir()
	bin := filepath.Join(work, "zksim")
	goCmd(t, root, nil, "build", "-o", bin, "./cmd/zksim")
	pkg := filepath.Join(work, "zk")
	copyPackage(t, modDir, pkg)
	for _, f := range harnessFiles {
		if err := os.Remove(filepath.Join(pkg, f)); err != nil {
			t.Fatalf("the module has no %s to replace: %v", f, err)
		}
	}
	harness, err := os.ReadFile(filepath.Join("testdata", "zksim_cluster_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "zksim_cluster_test.go"), harness, 0o644); err != nil {
		t.Fatal(err)
	}
	args := suitecheck.ServeArgs(t, bin, serveFeatureFlags)
	got := runSuite(t, pkg, []string{"ZKSIM_BIN=" + bin, "ZKSIM_SERVE_ARGS=" + strings.Join(args, " ")})
	suitecheck.Compare(t, suitecheck.ReadResults(t, filepath.Join("testdata", "real.txt")), got, waitingFor, "waitingFor")
}

func TestSuite_Real(t *testing.T) {
	if os.Getenv("ZKSIM_GOZK_REAL") == "" {
		t.Skip("set ZKSIM_GOZK_REAL=1 to run go-zookeeper's suite on the real server (ZOOKEEPER_BIN_PATH, default /usr/share/zookeeper/bin)")
	}
	bin := os.Getenv("ZOOKEEPER_BIN_PATH")
	if bin == "" {
		bin = "/usr/share/zookeeper/bin"
	}
	if _, err := os.Stat(filepath.Join(bin, "zkServer.sh")); err != nil {
		t.Skipf("no zkServer.sh in %s: %v", bin, err)
	}
	root := suitecheck.ModuleRoot(t)
	pkg := filepath.Join(t.TempDir(), "zk")
	copyPackage(t, moduleDir(t, root), pkg)
	patchRealWait(t, pkg)
	got := runSuite(t, pkg, []string{"ZOOKEEPER_BIN_PATH=" + bin})
	if *update {
		suitecheck.WriteResults(t, filepath.Join("testdata", "real.txt"), realHeader, got)
		return
	}
	want := suitecheck.ReadResults(t, filepath.Join("testdata", "real.txt"))
	for _, name := range suitecheck.SortedNames(want) {
		if want[name] == got[name] {
			continue
		}
		// The module's tests start Java servers with fixed waits, which a
		// loaded machine can miss; a test that differs is run once more,
		// alone, and reported only if it differs again.
		top, _, _ := strings.Cut(name, "/")
		again := runSuite(t, pkg, []string{"ZOOKEEPER_BIN_PATH=" + bin}, "-run", "^"+regexp.QuoteMeta(top)+"$")
		if want[name] == again[name] {
			t.Logf("%s: %s on the real server once, %s when run again alone (as in testdata/real.txt)", name, got[name], again[name])
			continue
		}
		t.Errorf("%s: %s on the real server now (twice), %s in testdata/real.txt", name, again[name], want[name])
	}
}

// realWaitCall is the one call of the module's harness that cannot work
// with Debian's 3.8.0 (see testdata/zksim_realwait_test.go); patchRealWait
// replaces it, and fails the test if the harness no longer has it.
const realWaitCall = "_, ok := FLWSrvr(serverAddrs, time.Second)"

func patchRealWait(t *testing.T, pkg string) {
	t.Helper()
	help := filepath.Join(pkg, "server_help_test.go")
	b, err := os.ReadFile(help)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(b, []byte(realWaitCall)) != 1 {
		t.Fatalf("server_help_test.go does not have %q once: the harness changed", realWaitCall)
	}
	b = bytes.Replace(b, []byte(realWaitCall), []byte("_, ok := srvrServing(serverAddrs, time.Second)"), 1)
	if err := os.WriteFile(help, b, 0o644); err != nil {
		t.Fatal(err)
	}
	extra, err := os.ReadFile(filepath.Join("testdata", "zksim_realwait_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "zksim_realwait_test.go"), extra, 0o644); err != nil {
		t.Fatal(err)
	}
}

// runSuite runs go test -json in pkg (with extra flags) and returns each test's outcome
// (subtests too, as NAME/SUB): pass, fail or skip.
func runSuite(t *testing.T, pkg string, env []string, extra ...string) map[string]string {
	t.Helper()
	env = append(env, "ZK_VERSION=3.8.0", "GOWORK=off", "GOFLAGS=-mod=mod")
	args := append([]string{"test", "-json", "-count=1", "-timeout=15m"}, extra...)
	out, err := goOutput(pkg, env, append(args, ".")...)
	results := parseEvents(t, out)
	if len(results) == 0 {
		t.Fatalf("go test ran no test (%v):\n%s", err, suitecheck.Tail(out))
	}
	counts := map[string]int{}
	for _, r := range results {
		counts[r]++
	}
	t.Logf("go-zookeeper suite: %d passed, %d failed, %d skipped of %d", counts["pass"], counts["fail"], counts["skip"], len(results))
	return results
}

type event struct {
	Action string
	Test   string
	Output string
}

func parseEvents(t *testing.T, out []byte) map[string]string {
	t.Helper()
	results := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Test == "" {
			continue
		}
		switch e.Action {
		case "pass", "fail", "skip":
			results[e.Test] = e.Action
		}
	}
	return results
}

// moduleDir finds go-zookeeper's source in the module cache, downloading
// it if needed; it skips the test when the Go toolchain cannot.
func moduleDir(t *testing.T, root string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("no go command to build go-zookeeper's suite: %v", err)
	}
	out, err := goOutput(root, nil, "mod", "download", "-json", module)
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); err != nil || jerr != nil || info.Dir == "" {
		t.Skipf("cannot get %s's source: %v %s %s", module, err, info.Error, suitecheck.Tail(out))
	}
	return info.Dir
}

// copyPackage copies the module's top-level files (its one package) into
// dst, writable (the module cache is read-only).
func copyPackage(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Type()&fs.ModeType != 0 {
			continue
		}
		if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func goCmd(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	if out, err := goOutput(dir, env, args...); err != nil {
		t.Skipf("go %s cannot run here: %v\n%s", strings.Join(args, " "), err, suitecheck.Tail(out))
	}
}

func goOutput(dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	return b.Bytes(), err
}

// realHeader heads testdata/real.txt.
const realHeader = "# go-zookeeper v1.0.4's tests on the real ZooKeeper 3.8.0 (Debian), with the\n" +
	"# module's own harness (its wait patched, see doc.go): ZKSIM_GOZK_REAL=1 go test ./internal/gozksuite -run TestSuite_Real -update\n"
