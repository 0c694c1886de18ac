package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// runOut runs zksim with args and returns its exit code and output.
func runOut(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// withoutRate drops the rate line, the only wall-clock figure of a run's
// output.
func withoutRate(s string) string {
	return regexp.MustCompile(`(?m)^  rate .*\n`).ReplaceAllString(s, "")
}

// TestRun_ParallelSameAsSequential: on any number of workers, a run's
// output is the sequential run's, byte for byte but the rate: the counts,
// the first failure (the smallest failing seed, not the first found) and
// its minimized counterexample; with -trace, every trace in seed order.
func TestRun_ParallelSameAsSequential(t *testing.T) {
	for _, args := range [][]string{
		{"run", "-recipe", "zoo/existsabsence", "-schedules", "200", "-seed", "80"},
		{"run", "-recipe", "rwlock", "-schedules", "70", "-trace"},
	} {
		var want string
		for _, parallel := range []string{"1", "4"} {
			out := filepath.Join(t.TempDir(), "failures")
			_, got, _ := runOut(t, append(args, "-parallel", parallel, "-out", out)...)
			got = strings.ReplaceAll(withoutRate(got), out, "OUT")
			if parallel == "1" {
				want = got
			} else if got != want {
				t.Errorf("%v: -parallel %s differs from -parallel 1:\n%s\nwant:\n%s", args, parallel, got, want)
			}
		}
		if strings.Contains(args[2], "zoo") {
			// Workers racing to the first failure show something only if
			// it is past the first batch of schedules a worker takes
			// (simcli hands 32 over at a time), and -trace's order only
			// with more schedules than a batch.
			if seed := firstFailure(want); seed-80 < 32 {
				t.Errorf("%v: first failure at seed %d, want one past the first batch for the test to mean something:\n%s", args, seed, want)
			}
		}
	}
}

// TestRun_ShardsMergeToTheRun: the shards of a run cover its seeds
// exactly (schedule k in shard k mod n) and merge to its verdict: the same
// counts and the same first failure, found by the shard that holds it.
func TestRun_ShardsMergeToTheRun(t *testing.T) {
	dir := t.TempDir()
	base := []string{"run", "-recipe", "zoo/assumeonwake", "-schedules", "200", "-out", dir}
	whole := filepath.Join(dir, "whole.json")
	if code, out, _ := runOut(t, append(base, "-summary", whole)...); code != 1 {
		t.Fatalf("whole run: exit %d\n%s", code, out)
	}
	var shards []string
	for i := range 3 {
		path := filepath.Join(dir, "shard"+strconv.Itoa(i)+".json")
		shards = append(shards, path)
		code, out, _ := runOut(t, append(base, "-shard", strconv.Itoa(i)+"/3", "-summary", path)...)
		if code != 1 || !strings.Contains(out, "(shard "+strconv.Itoa(i)+"/3 of seeds 1..200)") {
			t.Fatalf("shard %d: exit %d\n%s", i, code, out)
		}
	}
	var w, s0 map[string]any
	readJSON(t, whole, &w)
	readJSON(t, shards[0], &s0)
	if s0["seeds"] != "seeds 1..199 step 3" || s0["schedules"] != 67.0 {
		t.Errorf("shard 0 ran %v (%v schedules), want seeds 1..199 step 3 (67)", s0["seeds"], s0["schedules"])
	}
	code, merged, errb := runOut(t, append([]string{"merge"}, shards...)...)
	if code != 1 {
		t.Fatalf("merge: exit %d, %s\n%s", code, errb, merged)
	}
	first := w["first_failure"].(map[string]any)
	seed := int(first["seed"].(float64))
	if (seed-1)%3 == 0 {
		t.Errorf("the first failure, seed %d, is in shard 0: want it elsewhere for the test to mean something", seed)
	}
	for _, want := range []string{
		"zksim merge: zoo/assumeonwake, 5 clients x 3 acquisitions, faults default, random walk, seeds 1..200: 3 of 3 shards",
		"covered                every seed of 1..200",
		"schedules              200",
		"violations             " + strconv.Itoa(int(w["failing"].(float64))) + " schedules",
		"first failure: seed " + strconv.Itoa(seed) + ", mutual-exclusion",
		"replay:   go run ./cmd/zksim replay " + first["trace"].(string),
	} {
		if !strings.Contains(merged, want) {
			t.Errorf("merge lacks %q:\n%s", want, merged)
		}
	}

	code, merged, _ = runOut(t, "merge", shards[0], shards[2])
	if code != 1 || !strings.Contains(merged, "missing shards         1") {
		t.Errorf("merge without shard 1: exit %d\n%s", code, merged)
	}
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{[]string{shards[0], shards[0]}, "shard 0/3 given twice"},
		{[]string{shards[0], whole}, "not the shards of one run"},
		{[]string{filepath.Join(dir, "nothing.json")}, "no such file"},
	} {
		if code, _, errb := runOut(t, append([]string{"merge"}, tc.files...)...); code != 2 || !strings.Contains(errb, tc.want) {
			t.Errorf("merge %v: exit %d, %q, want 2 and %q", tc.files, code, errb, tc.want)
		}
	}
}

// firstFailure is the seed of the first failure a run reports; 0 if none.
func firstFailure(out string) int {
	m := regexp.MustCompile(`first failure: seed (\d+),`).FindStringSubmatch(out)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestRun_TimeWithoutSchedules: -time alone runs until the time is up,
// whatever the default schedule count, and says which seeds it covered;
// with -schedules as well, whichever comes first ends the run.
func TestRun_TimeWithoutSchedules(t *testing.T) {
	start := time.Now()
	code, out, _ := runOut(t, "run", "-time", "300ms", "-clients", "2", "-acquisitions", "1", "-faults", "none")
	if d := time.Since(start); code != 0 || d < 300*time.Millisecond {
		t.Fatalf("exit %d after %v\n%s", code, d, out)
	}
	m := regexp.MustCompile(`covered +seeds 1\.\.(\d+) \(time limit\)\n  schedules +(\d+)\n`).FindStringSubmatch(out)
	if !strings.Contains(out, "seeds 1.., time limit 300ms\n") || m == nil || m[1] != m[2] {
		t.Errorf("no unbounded run or no covered seeds:\n%s", out)
	}
	code, out, _ = runOut(t, "run", "-time", "1h", "-schedules", "5")
	if code != 0 || !strings.Contains(out, "seeds 1..5, time limit 1h0m0s\n") || !strings.Contains(out, "schedules              5\n") ||
		strings.Contains(out, "covered") {
		t.Errorf("-time 1h -schedules 5: exit %d\n%s", code, out)
	}
}

// TestRun_FaultsPercentKeepsDefaultKinds: a fault mix that names no kind
// changes the rate of the default kinds.
func TestRun_FaultsPercentKeepsDefaultKinds(t *testing.T) {
	code, out, _ := runOut(t, "run", "-faults", "percent=50", "-schedules", "3", "-trace")
	faults := regexp.MustCompile(`(?m)^ +\d+ t\d+ +(lose-request|lose-reply|disconnect|crash|pause|reap)\b`).FindAllString(out, -1)
	if code != 0 || len(faults) < 3 || !strings.Contains(out, "faults percent=50,") {
		t.Errorf("exit %d, %d faults in 3 schedules at 50%%:\n%s", code, len(faults), out)
	}
}

// TestRun_ServersRefusesSimulationFlags: flags that mean nothing on real
// servers are refused by name; the others are not.
func TestRun_ServersRefusesSimulationFlags(t *testing.T) {
	code, _, errb := runOut(t, "run", "-servers", "127.0.0.1:1", "-strategy", "pct", "-parallel", "2", "-followers", "1", "-seed", "3")
	if code != 2 || !strings.Contains(errb, "-strategy, -parallel, -followers: for simulated runs only, not with -servers") {
		t.Errorf("exit %d, %q", code, errb)
	}
}

// TestRun_WorkloadFlags: the workload and server settings reach the
// simulation: the saved counterexample, which replays under them, records
// them, and the header says the run's settings.
func TestRun_WorkloadFlags(t *testing.T) {
	dir := t.TempDir()
	code, out, _ := runOut(t, "run", "-recipe", "zoo/splitdash", "-schedules", "5", "-out", dir,
		"-followers", "2", "-sequence-start", "2147483000", "-overflow", "wrap",
		"-deadline-ticks", "20", "-deadline-percent", "30", "-unfenced")
	if code != 1 || !strings.Contains(out, "zoo/splitdash, 5 clients x 3 acquisitions (2 followers, sequence from 2147483000, wrap, deadline 20 ticks for 30%, unfenced),") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	trace, _ := savedFiles(t, out)
	saved, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"timeout=20 timeout-percent=30 unfenced=true", "sequence-start=2147483000", "followers=2 overflow=wrap"} {
		if !strings.Contains(string(saved), want) {
			t.Errorf("saved trace lacks %q:\n%.400s", want, saved)
		}
	}
	_, out, _ = runOut(t, "run", "-deadline-percent", "0", "-schedules", "1")
	if !strings.Contains(out, "(no deadlines)") {
		t.Errorf("-deadline-percent 0:\n%s", out)
	}
	for _, tc := range []struct{ args, want string }{
		{"-followers 5", "-followers must be between 0 and 4"},
		{"-overflow spill", "-overflow must be pin or wrap"},
		{"-sequence-start 2147483648", "-sequence-start must be between 0 and 2147483647"},
		{"-deadline-percent 101", "-deadline-percent must be between 0 and 100"},
		{"-shard 3/3", "-shard must be I/N with 0 <= I < N"},
		{"-parallel 0", "-parallel must be between 1 and 1024"},
	} {
		if code, _, errb := runOut(t, append([]string{"run"}, strings.Fields(tc.args)...)...); code != 2 || !strings.Contains(errb, tc.want) {
			t.Errorf("%s: exit %d, %q", tc.args, code, errb)
		}
	}
}

// TestRun_ProgressLines: off a terminal, a run writes a progress line to
// stderr every -progress period (here: after every schedule).
func TestRun_ProgressLines(t *testing.T) {
	_, _, errb := runOut(t, "run", "-schedules", "20", "-progress", "1ns")
	lines := strings.Split(strings.TrimSpace(errb), "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[len(lines)-1], "progress: seeds 1..20 in ") {
		t.Errorf("progress lines: %q", errb)
	}
	if _, _, errb = runOut(t, "run", "-schedules", "20"); errb != "" {
		t.Errorf("progress within the default period of 10s: %q", errb)
	}
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// zksimBinary builds the zksim command once for the tests that run it.
func zksimBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the zksim binary")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "zksim-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "zksim")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			buildErr = err
			t.Logf("%s", out)
		}
	})
	if buildErr != nil {
		t.Fatalf("go build: %v", buildErr)
	}
	return binPath
}

// TestRun_HeaderAtOnceAndCtrlC: a long run prints its header before
// exploring and, off a terminal, progress lines; Ctrl-C stops it and it
// prints the summary so far, with exit code 130 (no violation) or 1.
func TestRun_HeaderAtOnceAndCtrlC(t *testing.T) {
	bin := zksimBinary(t)
	for _, tc := range []struct {
		recipe string
		code   int
		want   string
	}{
		{"lock", 130, "violations             0 schedules"},
		{"zoo/splitdash", 1, "first failure: seed "},
	} {
		cmd := exec.Command(bin, "run", "-recipe", tc.recipe, "-time", "10m", "-progress", "1ms", "-out", t.TempDir())
		stdout, _ := cmd.StdoutPipe()
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		out := bufio.NewReader(stdout)
		header, _ := out.ReadString('\n')
		if !strings.HasPrefix(header, "zksim run: "+tc.recipe+", 5 clients x 3 acquisitions, faults default, random walk, seeds 1.., time limit 10m0s") {
			t.Errorf("first line %q, want the header", header)
		}
		firstErr := make(chan string, 1)
		go func() { // drains stderr, which gets a line per schedule
			errs := bufio.NewReader(stderr)
			line, _ := errs.ReadString('\n')
			firstErr <- line
			io.Copy(io.Discard, errs)
		}()
		if progress := <-firstErr; !strings.HasPrefix(progress, "progress: seeds 1..") {
			t.Errorf("first line on stderr %q, want a progress line", progress)
		}
		cmd.Process.Signal(syscall.SIGINT)
		rest, _ := io.ReadAll(out)
		err := cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != tc.code {
			t.Errorf("%s: exit %d (%v), want %d", tc.recipe, code, err, tc.code)
		}
		if !regexp.MustCompile(`covered +seeds 1\.\.\d+ \(interrupted\)`).Match(rest) || !strings.Contains(string(rest), tc.want) {
			t.Errorf("%s: no summary so far after Ctrl-C:\n%s", tc.recipe, rest)
		}
	}
}
