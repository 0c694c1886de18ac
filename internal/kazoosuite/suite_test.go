package kazoosuite_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"flag"
	"fmt"
	"github.com/zksim/zksim/internal/suitecheck"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/real.txt from TestSuite_Real")

// python is the interpreter Debian's python3-kazoo installs for.
const python = "/usr/bin/python3"

// modules are what kazoo's test modules import besides kazoo itself.
const modules = "kazoo, kazoo.tests, pytest, mock, objgraph"

// superDigest is kazoo's harness's super user, password "test".
const superDigest = "super:D/InIHSb7yEEbrWz8b9l71RjZJU="

// serveFeatureFlags configure serve as kazoo's harness configures its Java
// servers (kazoo/testing/harness.py and common.py: tickTime=2000,
// maxClientCnxns=0, reconfigEnabled=true, the super digest,
// 4lw.commands.whitelist=*, serve's -4lw '*'; the shim adds -sasl-users
// with the harness's JAAS file for test_sasl). A flag serve lacks fails
// the test. Not offered by serve: readonlymode.enabled (kazoo's one
// read-only test fails on the real server too).
var serveFeatureFlags = [][]string{
	{"-4lw", "*"},
	{"-tick", "2000"},
	{"-max-conns", "0"},
	{"-reconfig"},
	{"-super-digest", superDigest},
}

// knownDifferences lists the tests that pass on the real server and may
// fail on serve, each with its cause, a limit of the fake that docs/serve.md
// documents. A listed test that passes is reported, so that its entry can
// go.
var knownDifferences = map[string]string{}

func TestSuite_Serve(t *testing.T) {
	if testing.Short() {
		t.Skip("kazoo's suite takes minutes: skipped with -short")
	}
	testsDir := kazooTests(t)
	root := suitecheck.ModuleRoot(t)
	work := t.TempDir()
	bin := filepath.Join(work, "zksim")
	build := exec.Command("go", "build", "-o", bin, "./cmd/zksim")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Skipf("cannot build zksim: %v\n%s", err, out)
	}
	shim, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	env := []string{
		"PYTHONPATH=" + shim,
		"ZKSIM_BIN=" + bin,
		"ZKSIM_SERVE_ARGS=" + strings.Join(suitecheck.ServeArgs(t, bin, serveFeatureFlags), " "),
	}
	if os.Getenv("ZKSIM_SERVE_LOG") == "" {
		env = append(env, "ZKSIM_SERVE_LOG="+filepath.Join(work, "serve.log"))
	}
	got := runSuite(t, work, testsDir, env, true, "-p", "zksim_kazoo_shim")
	suitecheck.Compare(t, suitecheck.ReadResults(t, filepath.Join("testdata", "real.txt")), got, knownDifferences, "knownDifferences")
}

func TestSuite_Real(t *testing.T) {
	if os.Getenv("ZKSIM_KAZOO_REAL") == "" {
		t.Skip("set ZKSIM_KAZOO_REAL=1 to run kazoo's suite on the real server (jars in ZK_JAVA_DIR, default /usr/share/java)")
	}
	testsDir := kazooTests(t)
	jars := os.Getenv("ZK_JAVA_DIR")
	if jars == "" {
		jars = "/usr/share/java"
	}
	var cp []string
	for _, j := range []string{"zookeeper.jar", "slf4j-log4j12.jar", "log4j-1.2.jar"} {
		p := filepath.Join(jars, j)
		if _, err := os.Stat(p); err != nil {
			t.Skipf("no %s (apt-get install zookeeper): %v", p, err)
		}
		cp = append(cp, p)
	}
	if _, err := exec.LookPath("java"); err != nil {
		t.Skipf("no java to run ZooKeeper: %v", err)
	}
	env := []string{
		"ZOOKEEPER_CLASSPATH=" + strings.Join(cp, ":"),
		"ZOOKEEPER_VERSION=3.8.0",
		"ZOOKEEPER_PORT_OFFSET=" + strconv.Itoa(freePortBlock(t, 3)),
	}
	got := runSuite(t, t.TempDir(), testsDir, env, true)
	if *update {
		suitecheck.WriteResults(t, filepath.Join("testdata", "real.txt"), realHeader, got)
		return
	}
	// A recorded pass that no longer passes would make the serve
	// comparison demand too much; a recorded failure that passes now
	// (kazoo's read-only test is timing-bound) is only reported.
	want := suitecheck.ReadResults(t, filepath.Join("testdata", "real.txt"))
	for _, name := range suitecheck.SortedNames(want) {
		switch {
		case want[name] == got[name]:
		case want[name] == "pass":
			t.Errorf("%s: %s on the real server now, pass in testdata/real.txt", name, nonEmpty(got[name]))
		default:
			t.Logf("%s: %s on the real server now, %s in testdata/real.txt", name, nonEmpty(got[name]), want[name])
		}
	}
	for _, name := range suitecheck.SortedNames(got) {
		if _, ok := want[name]; !ok {
			t.Errorf("%s (%s) is not in testdata/real.txt: rerun with -update", name, got[name])
		}
	}
}

// kazooTests returns the directory of kazoo's installed tests, or skips t
// when python3 cannot import them and what they need.
func kazooTests(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, python, "-c",
		"import os, "+modules+"; print(os.path.dirname(kazoo.tests.__file__))").Output()
	if err != nil {
		t.Skipf("%s cannot import %s (scripts/install-zookeeper.sh installs them): %v", python, modules, err)
	}
	return strings.TrimSpace(string(out))
}

// freePortBlock returns a base port b such that b .. b+10*size-1, the
// ports kazoo's harness gives a cluster of size servers (ZOOKEEPER_PORT_OFFSET),
// are free now, below the kernel's ephemeral range so that a stopped server
// can bind its ports again.
func freePortBlock(t *testing.T, size int) int {
	t.Helper()
	width := 10 * size
	start := 10000 + (os.Getpid()*37)%15000
	for base := start; base < start+15000; base += width {
		b := 10000 + (base-10000)%15000
		if blockFree(b, width) {
			return b
		}
	}
	t.Fatal("no free block of ports for the real cluster")
	return 0
}

func blockFree(base, width int) bool {
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	for p := base; p < base+width; p++ {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			return false
		}
		held = append(held, l)
	}
	return true
}

// runSuite runs pytest on kazoo's tests in work with env added, and
// returns each test's outcome by id (MODULE.CLASS::TEST): pass, fail or
// skip. With retry, the tests that fail are run once more, on their own
// with a fresh cluster, and count as passed if they pass then (doc.go
// says why). pytest's output and JUnit XML are kept in ZKSIM_KAZOO_OUT,
// a directory, when set.
func runSuite(t *testing.T, work, testsDir string, env []string, retry bool, extra ...string) map[string]string {
	t.Helper()
	if keep := os.Getenv("ZKSIM_KAZOO_OUT"); keep != "" {
		work = keep
	}
	start := time.Now()
	results := pytest(t, work, testsDir, "run", env, append(extra, testsDir))
	var again []string
	for _, id := range suitecheck.SortedNames(results) {
		if results[id] == "fail" {
			again = append(again, nodeID(testsDir, id))
		}
	}
	if retry && len(again) > 0 {
		for id, r := range pytest(t, work, testsDir, "retry", env, append(extra, again...)) {
			if r == "pass" && results[id] == "fail" {
				t.Logf("%s failed, then passed when run again", id)
				results[id] = r
			}
		}
	}
	counts := map[string]int{}
	for _, r := range results {
		counts[r]++
	}
	t.Logf("kazoo suite: %d passed, %d failed, %d skipped of %d in %s",
		counts["pass"], counts["fail"], counts["skip"], len(results), time.Since(start).Round(time.Second))
	return results
}

// testTimeout bounds one kazoo test (pytest-timeout, when installed):
// the slowest take seconds.
const testTimeout = "120"

// hasModule reports whether Debian's python can import module.
func hasModule(module string) bool {
	return exec.Command(python, "-c", "import "+module).Run() == nil
}

// nodeID turns a JUnit id (MODULE.CLASS::TEST) back into pytest's node id.
func nodeID(testsDir, id string) string {
	class, name, _ := strings.Cut(id, "::")
	module, class, _ := strings.Cut(class, ".")
	node := filepath.Join(testsDir, module+".py")
	if class != "" {
		node += "::" + strings.ReplaceAll(class, ".", "::")
	}
	return node + "::" + name
}

// pytest runs one pytest in work (its output in NAME.log, its JUnit XML
// in NAME.xml) and returns the outcomes. Its rootdir is kazoo's tests
// directory, so that a test has the same id whether its module or its
// node id is named (pytest writes nothing there: no cache, no bytecode).
// pytest and whatever it starts run in their own process group, killed
// whole if the run outlives its deadline.
func pytest(t *testing.T, work, testsDir, name string, env, args []string) map[string]string {
	t.Helper()
	junit := filepath.Join(work, name+".xml")
	args = append([]string{"-m", "pytest", "-p", "no:cacheprovider", "-q", "-rfE",
		"--rootdir", testsDir, "--junit-xml", junit}, args...)
	if hasModule("pytest_timeout") {
		// A test that hangs fails alone, with its stacks in the log,
		// instead of the whole run hitting its deadline.
		args = append(args[:2:2], append([]string{"--timeout", testTimeout}, args[2:]...)...) // the plugin loads itself
	}
	// Stop short of go test's own deadline, whose panic would leave the
	// process group running.
	deadline := time.Now().Add(15 * time.Minute)
	if d, ok := t.Deadline(); ok && d.Add(-30*time.Second).Before(deadline) {
		deadline = d.Add(-30 * time.Second)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, args...)
	cmd.Dir = work
	cmd.Env = append(append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1"), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if werr := os.WriteFile(filepath.Join(work, name+".log"), out.Bytes(), 0o644); werr != nil {
		t.Log(werr)
	}
	// pytest exits 1 when a test fails; the JUnit file says which.
	results, perr := parseJUnit(junit)
	if perr != nil || len(results) == 0 {
		t.Fatalf("pytest ran no test (%v, %v):\n%s", err, perr, suitecheck.Tail(out.Bytes()))
	}
	if testing.Verbose() {
		t.Logf("pytest's summary (%s):\n%s", name, suitecheck.Tail(out.Bytes()))
	}
	return results
}

type junitSuites struct {
	Cases []junitCase `xml:"testsuite>testcase"`
}

type junitCase struct {
	Class   string    `xml:"classname,attr"`
	Name    string    `xml:"name,attr"`
	Failure *struct{} `xml:"failure"`
	Error   *struct{} `xml:"error"`
	Skipped *struct{} `xml:"skipped"`
}

// parseJUnit reads pytest's JUnit XML: a test with a failure or an error
// (in its setup or teardown too) failed.
func parseJUnit(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s junitSuites
	if err := xml.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	results := map[string]string{}
	for _, c := range s.Cases {
		id := c.Name
		if c.Class != "" {
			id = c.Class + "::" + c.Name
		}
		r := "pass"
		switch {
		case c.Failure != nil || c.Error != nil:
			r = "fail"
		case c.Skipped != nil:
			r = "skip"
		}
		if results[id] != "fail" {
			results[id] = r
		}
	}
	return results, nil
}

// realHeader heads testdata/real.txt.
const realHeader = "# kazoo 2.8's tests (Debian's python3-kazoo) on the real ZooKeeper 3.8.0 (Debian),\n" +
	"# with kazoo's own harness: ZKSIM_KAZOO_REAL=1 go test ./internal/kazoosuite -run TestSuite_Real -update\n"

func nonEmpty(s string) string {
	if s == "" {
		return "missing"
	}
	return s
}
