package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// savedFiles is the trace and report files a run's output names (its
// "trace:" and "report:" lines); it fails t if there is no trace line.
func savedFiles(t *testing.T, out string) (trace, report string) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^trace: +(\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no trace line:\n%s", out)
	}
	if r := regexp.MustCompile(`(?m)^report: +(\S+)`).FindStringSubmatch(out); r != nil {
		report = r[1]
	}
	return m[1], report
}

// TestRun_FailuresKeepTheirFiles: a later run into the same -out (other
// seeds), and the other shard of a run, save their failures under names
// of their own: the file an earlier hint points at stays as it was.
func TestRun_FailuresKeepTheirFiles(t *testing.T) {
	dir := t.TempDir()
	runs := [][]string{
		{"-seed", "1", "-schedules", "5"},
		{"-seed", "100", "-schedules", "5"},
		{"-seed", "50", "-schedules", "20", "-shard", "0/2"},
		{"-seed", "50", "-schedules", "20", "-shard", "1/2"},
	}
	saved := map[string][]byte{} // trace file -> its bytes when its run ended
	for _, args := range runs {
		code, out, errb := runOut(t, append([]string{"run", "-recipe", "zoo/splitdash", "-out", dir}, args...)...)
		if code != 1 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errb)
		}
		trace, report := savedFiles(t, out)
		if _, seen := saved[trace]; seen {
			t.Errorf("%v saved its failure as %s, an earlier run's file", args, trace)
		}
		if report != strings.TrimSuffix(trace, ".trace")+".html" {
			t.Errorf("%v: report %s beside trace %s", args, report, trace)
		}
		saved[trace], _ = os.ReadFile(trace)
	}
	for trace, b := range saved {
		if now, err := os.ReadFile(trace); err != nil || string(now) != string(b) {
			t.Errorf("%s changed after its run (%v)", trace, err)
		}
	}
}

// TestMerge_TracePathFromWhereMergeRuns: merge, run from another
// directory than the shards', names the first failure's trace by a path
// that works from where it runs, and its replay hint replays it.
func TestMerge_TracePathFromWhereMergeRuns(t *testing.T) {
	base := t.TempDir()
	shards := filepath.Join(base, "ci", "shards")
	if err := os.MkdirAll(shards, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(shards)
	for _, shard := range []string{"0", "1"} {
		code, out, _ := runOut(t, "run", "-recipe", "zoo/splitdash", "-schedules", "4", "-shard", shard+"/2",
			"-summary", "s"+shard+".json", "-out", "failures")
		if code != 1 {
			t.Fatalf("shard %s: exit %d\n%s", shard, code, out)
		}
	}
	t.Chdir(base)
	code, out, errb := runOut(t, "merge", filepath.Join("ci", "shards", "s0.json"), filepath.Join("ci", "shards", "s1.json"))
	if code != 1 {
		t.Fatalf("merge: exit %d\n%s%s", code, out, errb)
	}
	trace, _ := savedFiles(t, out)
	if _, err := os.Stat(trace); err != nil {
		t.Fatalf("merge names %s, not there from where it ran: %v\n%s", trace, err, out)
	}
	if !strings.Contains(out, "replay:   go run ./cmd/zksim replay "+filepath.ToSlash(trace)) {
		t.Errorf("no replay hint for %s:\n%s", trace, out)
	}
	if code, replayed, _ := runOut(t, "replay", trace); code != 1 || !strings.Contains(replayed, "verdict:\n  mutual-exclusion") {
		t.Errorf("replay %s: exit %d\n%s", trace, code, replayed)
	}
}

// TestRun_InstalledHint: an installed zksim (on PATH, run as "zksim")
// names itself in the replay hint, and the hint works as printed.
func TestRun_InstalledHint(t *testing.T) {
	if testing.Short() {
		t.Skip("builds zksim")
	}
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "zksim"), ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := t.TempDir()
	out, _ := exec.Command("zksim", "run", "-recipe", "zoo/splitdash", "-schedules", "5", "-out", dir).Output()
	trace, _ := savedFiles(t, string(out))
	hint := regexp.MustCompile(`(?m)^replay: +(.+)$`).FindStringSubmatch(string(out))
	if hint == nil || hint[1] != "zksim replay "+filepath.ToSlash(trace) {
		t.Fatalf("hint %q, want %q", hint, "zksim replay "+trace)
	}
	args := strings.Fields(hint[1])
	replayed, err := exec.Command(args[0], args[1:]...).Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(replayed), "verdict:\n  mutual-exclusion") {
		t.Errorf("%s: %v\n%s", hint[1], err, replayed)
	}
}
