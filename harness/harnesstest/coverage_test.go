package harnesstest_test

import (
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/harness/harnesstest"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// coverageChildEnv names what TestCoverage_GreenChild runs when the
// parent test starts this test binary again.
const coverageChildEnv = "ZKSIM_COVERAGE_CHILD"

// TestCoverage_GreenChild runs only as a child of
// TestCheck_LogsExercisedWithV: a user's test that passes, with a
// few rapid checks of each kind and a small systematic search.
func TestCoverage_GreenChild(t *testing.T) {
	if os.Getenv(coverageChildEnv) == "" {
		t.Skip("run by TestCheck_LogsExercisedWithV")
	}
	opts := harnesstest.Options{}
	harnesstest.Check(t, harness.Lock(zoo.Mutex(), harness.Workload{}), opts)
	harnesstest.Check(t, harness.Barrier(zoo.DoubleBarrier(), harness.BarrierWorkload{}), harnesstest.Options{Config: opts.Config})
	harnesstest.CheckExhaustive(t, harness.Lock(zoo.Mutex(), harness.Workload{Clients: 2, Acquisitions: 1}), opts, sim.Bounds{Deviations: 0})
}

// runCoverageChild runs one test of this binary as a child process with
// 3 rapid checks, verbose or not, and returns its output and exit code.
func runCoverageChild(t *testing.T, test string, verbose bool, env ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v="+strconv.FormatBool(verbose), "-rapid.checks=3", "-rapid.seed=1")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out), exit.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

var exercisedRuns = regexp.MustCompile(`the checks' schedules exercised in (\d+) runs:`)

// A passing test logs what its checks exercised with -v (every check's
// schedules and the search's runs, summed, with the never list), and
// nothing without.
func TestCheck_LogsExercisedWithV(t *testing.T) {
	out, code := runCoverageChild(t, "TestCoverage_GreenChild", true, coverageChildEnv+"=1")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	m := exercisedRuns.FindStringSubmatch(out)
	if m == nil || strings.Count(out, "exercised in") != 1 {
		t.Fatalf("want one exercised table:\n%s", out)
	}
	// 3 checks of 10 schedules each for Check,
	// then the search's runs.
	if n, _ := strconv.Atoi(m[1]); n <= 60 {
		t.Errorf("exercised %d runs, want more than the 60 of the rapid checks:\n%s", n, out)
	}
	for _, want := range []string{"    requests      create ", "    never         "} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	out, _ = runCoverageChild(t, "TestCoverage_GreenChild", false, coverageChildEnv+"=1")
	if strings.Contains(out, "exercised in") {
		t.Errorf("logged without -v:\n%s", out)
	}
}

// A failing test shows what its checks exercised, without -v.
func TestCheck_LogsExercisedOnFailure(t *testing.T) {
	out, code := runCoverageChild(t, "TestCheck_FailingChild", false, childEnv+"="+t.TempDir())
	if code != 1 || !exercisedRuns.MatchString(out) {
		t.Fatalf("exit %d, want 1 and the exercised table:\n%s", code, out)
	}
}
