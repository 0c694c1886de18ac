package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/zksim/zksim/simcli"
)

// The CI contract of zksim run: what a signal, an unwritable report and
// input that means nothing do, each with its own exit code.

// stopAfterProgress starts the built zksim with args, waits for its first
// progress line on stderr (the run is under way), calls meanwhile, sends
// it sig and returns its stdout, stderr and exit code.
func stopAfterProgress(t *testing.T, meanwhile func(), sig syscall.Signal, args ...string) (stdout string, stderr *bytes.Buffer, code int) {
	t.Helper()
	cmd := exec.Command(zksimBinary(t), args...)
	out, _ := cmd.StdoutPipe()
	errPipe, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	errs := bufio.NewReader(errPipe)
	stderr = &bytes.Buffer{}
	for {
		line, err := errs.ReadString('\n')
		stderr.WriteString(line)
		if strings.HasPrefix(line, "progress: ") || err != nil {
			break
		}
	}
	meanwhile()
	cmd.Process.Signal(sig)
	copied := make(chan struct{})
	go func() { io.Copy(stderr, errs); close(copied) }()
	b, _ := io.ReadAll(out)
	<-copied
	cmd.Wait()
	return string(b), stderr, cmd.ProcessState.ExitCode()
}

// TestRun_SIGTERMWritesReports: SIGTERM (Kubernetes, timeout(1), a
// cancelled CI job) stops a run as Ctrl-C does: the -json summary, the
// -junit report and the -summary file say what was covered, exit 130.
func TestRun_SIGTERMWritesReports(t *testing.T) {
	dir := t.TempDir()
	junit, sum := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "summary.json")
	stdout, stderr, code := stopAfterProgress(t, func() {}, syscall.SIGTERM, "run", "-time", "10m", "-progress", "1ms", "-json",
		"-junit", junit, "-summary", sum, "-out", dir)
	if code != 130 {
		t.Fatalf("exit %d, want 130\nstderr:\n%s", code, stderr)
	}
	objs := jsonLines(t, stdout)
	last := objs[len(objs)-1]
	if last["type"] != "summary" || last["stopped"] != "interrupted" || last["exit"] != 130.0 {
		t.Errorf("-json's last object: %v", last)
	}
	var s map[string]any
	readJSON(t, sum, &s)
	if s["stopped"] != "interrupted" || s["schedules"].(float64) < 1 {
		t.Errorf("-summary: %v", s)
	}
	if doc := junitShape(t, junit); doc.Errors != 1 {
		t.Errorf("-junit: %+v, want the interrupted run as an error", doc)
	}
	if !strings.Contains(stderr.String(), "(interrupted)") {
		t.Errorf("no summary so far on stderr:\n%s", stderr)
	}
}

// TestRun_LostReportExits3: a report whose directory goes away during
// the run cannot be written: the other reports still are (the -json
// summary included), and the exit code says "could not run", 3, not
// "violation".
func TestRun_LostReportExits3(t *testing.T) {
	dir := t.TempDir()
	gone := filepath.Join(dir, "gone")
	if err := os.Mkdir(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	junit := filepath.Join(dir, "junit.xml")
	stdout, stderr, code := stopAfterProgress(t, func() {
		if err := os.Remove(gone); err != nil {
			t.Error(err)
		}
	}, syscall.SIGINT, "run", "-time", "10m", "-progress", "1ms", "-json", "-summary", filepath.Join(gone, "summary.json"), "-junit", junit, "-out", dir)
	if code != 3 || !strings.Contains(stderr.String(), "-summary: ") {
		t.Errorf("exit %d, want 3 and the -summary error\n%s", code, stderr)
	}
	objs := jsonLines(t, stdout)
	if last := objs[len(objs)-1]; last["type"] != "summary" {
		t.Errorf("-json's last object %v, want the summary", last)
	}
	if _, err := os.Stat(junit); err != nil {
		t.Errorf("-junit not written: %v", err)
	}
}

// TestRun_UnwritableOutputsRefused: a -summary, -junit or -out path that
// cannot be written is a usage error before anything runs, naming the
// flag; so is merge's -junit.
func TestRun_UnwritableOutputsRefused(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	under := filepath.Join(file, "x") // under a regular file: never writable, even as root
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-summary", under}, "-summary " + under + " cannot be written"},
		{[]string{"run", "-junit", under}, "-junit " + under + " cannot be written"},
		{[]string{"run", "-junit", dir}, "-junit " + dir + " cannot be written"},
		{[]string{"run", "-out", under}, "-out " + under + " cannot be written"},
		{[]string{"run", "-out", file}, "-out " + file + " cannot be written"},
		{[]string{"merge", "-junit", under, file}, "-junit " + under + " cannot be written"},
	} {
		code, stdout, stderr := runOut(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing run, and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new.json")); err == nil {
		t.Error("the check left a file behind")
	}
	if code, _, stderr := runOut(t, "run", "-schedules", "5", "-summary", filepath.Join(dir, "new.json"), "-out", filepath.Join(dir, "a", "b")); code != 0 {
		t.Errorf("writable paths refused: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); err == nil {
		t.Error("the check of -out made its directory on a clean run")
	}
}

// TestRun_RefusesInputItWouldIgnore: input a run would silently ignore,
// or read as something else, is refused with a message naming it, in
// one or two lines (no page of flags), exit 2, nothing run.
func TestRun_RefusesInputItWouldIgnore(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-faults", "crash=1,crash=2"}, `fault "crash" given twice`},
		{[]string{"-faults", "lose-request=1,drop-request=2"}, `fault "lose-request" given twice (as "lose-request" and "drop-request")`},
		{[]string{"-faults", "percent=5,crash,percent=7"}, `fault "percent" given twice`},
		{[]string{"-faults", ""}, "-faults is empty"},
		{[]string{"-recipe", "election", "-read", "30"}, "-read: election makes no read acquisitions"},
		{[]string{"-recipe", "lock", "-read", "0"}, "-read: lock makes no read acquisitions"},
		{[]string{"-strategy", "exhaustive", "-symmetry", "-clients", "5"}, "-symmetry treats 2 to 4 clients"},
		{[]string{"-seed", "-5"}, `invalid value "-5" for flag -seed`},
		{[]string{"-v", "-q"}, "-v and -q: choose one"},
		{[]string{"-servers", "127.0.0.1:1", "-failfast"}, "-failfast: for simulated runs only"},
	} {
		code, stdout, stderr := runOut(t, append([]string{"run"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) || stdout != "" || strings.Count(stderr, "\n") > 2 {
			t.Errorf("run %q: exit %d, stdout %q, stderr:\n%s\nwant 2, nothing run, and %q in at most 2 lines", tc.args, code, stdout, stderr, tc.want)
		}
	}
	if code, _, stderr := runOut(t, "run", "-recipe", "rwlock", "-read", "0", "-schedules", "5"); code != 0 {
		t.Errorf("-read for rwlock: exit %d, %s", code, stderr)
	}
}

// failingTrace runs a broken recipe and returns the path of the trace it
// saved.
func failingTrace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	code, out, _ := runOut(t, "run", "-recipe", "zoo/assumeonwake", "-schedules", "40", "-out", dir)
	trace, _ := savedFiles(t, out)
	if code != 1 || trace == "" {
		t.Fatalf("exit %d\n%s", code, out)
	}
	return trace
}

// TestReplay_TruncatedTrace: a trace file cut short (after a line, or
// within one) is refused as truncated, exit 2; a file whose trace
// differs is still a divergence, exit 1.
func TestReplay_TruncatedTrace(t *testing.T) {
	path := failingTrace(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	lines := strings.SplitAfter(string(b), "\n")
	for _, tc := range []struct {
		name, text string
		code       int
		want       string
	}{
		{"after-line", strings.Join(lines[:len(lines)-6], ""), 2, "truncated: its trace stops after line"},
		{"within-line", string(b[:len(b)-8]), 2, "truncated: its trace stops within line"},
		{"edited", strings.Replace(string(b), "recv c2 reply", "recv c1 reply", 1), 1, "diverged from the saved trace"},
	} {
		p := filepath.Join(dir, tc.name+".trace")
		if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := runOut(t, "replay", p); code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, %q; want %d and %q", tc.name, code, stderr, tc.code, tc.want)
		}
	}
}

// TestMerge_RefusesEditedSummary: a summary no run writes (negative
// counts, more failures than schedules, a finished shard short of its
// plan) is refused naming the field, not merged into "covered every
// seed".
func TestMerge_RefusesEditedSummary(t *testing.T) {
	dir := t.TempDir()
	var shards []string
	for i := range 2 {
		p := filepath.Join(dir, "s"+strconv.Itoa(i)+".json")
		shards = append(shards, p)
		if code, out, _ := runOut(t, "run", "-schedules", "10", "-shard", strconv.Itoa(i)+"/2", "-summary", p, "-out", dir); code != 0 {
			t.Fatalf("shard %d: exit %d\n%s", i, code, out)
		}
	}
	if code, out, stderr := runOut(t, append([]string{"merge"}, shards...)...); code != 0 || !strings.Contains(out, "every seed of 1..10") {
		t.Fatalf("merge as written: exit %d %s\n%s", code, stderr, out)
	}
	var s map[string]any
	readJSON(t, shards[1], &s)
	for _, tc := range []struct {
		field string
		value any
		want  string
	}{
		{"schedules", -5, `"schedules" is -5, negative`},
		{"failing", -1, `"failing" is -1, negative`},
		{"failing", 9, `"failing" is 9, more than its 5 schedules`},
		{"schedules", 3, `"schedules" is 3, not stopped, but shard 1/2 has 5`},
		{"schedules", 7, `"schedules" is 7, more than shard 1/2's 5`},
		{"classes", map[string]int{"herd": -2}, `"classes" has herd -2`},
	} {
		edited := map[string]any{}
		for k, v := range s {
			edited[k] = v
		}
		edited[tc.field] = tc.value
		b, _ := json.Marshal(edited)
		p := filepath.Join(dir, "edited.json")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, stderr := runOut(t, "merge", shards[0], p)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Contains(out, "every seed") {
			t.Errorf("%s = %v: exit %d, %q\n%s\nwant 2 and %q", tc.field, tc.value, code, stderr, out, tc.want)
		}
	}
}

// TestRun_FailFast: -failfast stops at the first failing schedule in
// schedule order, whatever -parallel, reports and saves it, and says why
// the run stopped.
func TestRun_FailFast(t *testing.T) {
	dir := t.TempDir()
	_, whole, _ := runOut(t, "run", "-recipe", "zoo/assumeonwake", "-schedules", "400", "-out", dir)
	seed := firstFailure(whole)
	for _, parallel := range []string{"1", "2"} {
		sum := filepath.Join(dir, "s"+parallel+".json")
		code, out, _ := runOut(t, "run", "-recipe", "zoo/assumeonwake", "-schedules", "400", "-failfast", "-parallel", parallel, "-summary", sum, "-out", dir)
		var s map[string]any
		readJSON(t, sum, &s)
		if code != 1 || firstFailure(out) != seed || s["schedules"] != float64(seed) || s["failing"] != 1.0 || s["stopped"] != "first failure (-failfast)" ||
			!strings.Contains(out, "covered                seeds 1.."+strconv.Itoa(seed)+" (first failure (-failfast))") {
			t.Errorf("-parallel %s: exit %d, summary %v\n%s", parallel, code, s, out)
		}
	}
	if seed < 2 {
		t.Errorf("first failure at seed %d: want a later one for the test to mean something", seed)
	}
}

// TestRun_VerboseQuiet: -v adds a line per failing schedule; -q leaves
// the header, progress and the exercised table out, keeping the counts
// and the first failure.
func TestRun_VerboseQuiet(t *testing.T) {
	dir := t.TempDir()
	args := []string{"run", "-recipe", "zoo/assumeonwake", "-schedules", "60", "-progress", "1ns", "-out", dir}
	_, plain, _ := runOut(t, args...)
	code, verbose, _ := runOut(t, append(args, "-v")...)
	failing := violationCount(t, plain)
	if code != 1 || strings.Count(verbose, "\nFAIL seed ") != failing || !strings.Contains(verbose, "FAIL seed "+strconv.Itoa(firstFailure(plain))+" (schedule ") {
		t.Errorf("-v: exit %d, want %d FAIL lines\n%s", code, failing, verbose)
	}
	if strings.Contains(plain, "FAIL seed") {
		t.Errorf("FAIL lines without -v:\n%s", plain)
	}
	code, quiet, stderr := runOut(t, append(args, "-q")...)
	if code != 1 || strings.HasPrefix(quiet, "zksim run:") || strings.Contains(quiet, "exercised") || stderr != "" ||
		!strings.Contains(quiet, "violations             "+strconv.Itoa(failing)+" schedules") || !strings.Contains(quiet, "first failure: seed ") {
		t.Errorf("-q: exit %d, stderr %q\n%s", code, stderr, quiet)
	}
	if !strings.HasPrefix(plain, "zksim run:") || !strings.Contains(plain, "exercised") {
		t.Errorf("plain run lacks the header or the exercised table:\n%s", plain)
	}
}

// violationCount is the failing schedules a run's report counts.
func violationCount(t *testing.T, s string) int {
	t.Helper()
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == "violations" && f[2] == "schedules" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	t.Fatalf("no violation count in\n%s", s)
	return 0
}

// TestRun_ShrinkTime: -shrink-time bounds how long the first failure is
// made smaller, never whether it is reported: at 1ns the run still
// reports and saves a counterexample that replays.
func TestRun_ShrinkTime(t *testing.T) {
	dir := t.TempDir()
	code, out, _ := runOut(t, "run", "-recipe", "zoo/assumeonwake", "-schedules", "40", "-shrink-time", "1ns", "-out", dir)
	trace, _ := savedFiles(t, out)
	if code != 1 || trace == "" {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if code, _, stderr := runOut(t, "replay", trace); code != 1 {
		t.Errorf("replay: exit %d %s", code, stderr)
	}
	if code, _, stderr := runOut(t, "run", "-shrink-time", "0"); code != 2 || !strings.Contains(stderr, "-shrink-time must be positive") {
		t.Errorf("-shrink-time 0: exit %d %s", code, stderr)
	}
}

// TestDocs_ExitCodeTable: docs/cli.md's table of exit codes ("Using
// zksim in CI") has a row for each code simcli defines, and no other.
func TestDocs_ExitCodeTable(t *testing.T) {
	ci := docSection(t, "docs/cli.md", "## Using zksim in CI")
	var got []int
	for _, line := range strings.Split(ci, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) == 4 {
			if n, err := strconv.Atoi(strings.TrimSpace(cells[1])); err == nil {
				got = append(got, n)
			}
		}
	}
	want := []int{simcli.ExitOK, simcli.ExitViolation, simcli.ExitUsage, simcli.ExitCouldNotRun, simcli.ExitInterrupted}
	if !slices.Equal(got, want) {
		t.Errorf("docs/cli.md's exit codes %v, want simcli's %v", got, want)
	}
}
