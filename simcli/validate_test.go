package simcli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/simcli"
	"github.com/zksim/zksim/zoo"
)

// TestRun_RefusesBadFlags: every flag out of its range is refused before
// the run starts: the usage error names the flag and its range, exit 2,
// nothing run and nothing saved.
func TestRun_RefusesBadFlags(t *testing.T) {
	cli := &simcli.CLI{Name: "mycheck", Recipes: []recipe.Lock{zoo.Mutex()},
		Subjects: []harness.Subject{harness.Barrier(zoo.DoubleBarrier(), harness.BarrierWorkload{})}}
	for _, tc := range []struct {
		args []string
		want string
	}{
		// refused before this test was written
		{[]string{"-clients", "-2"}, "-clients must be between 2 and 64, got -2"},
		{[]string{"-clients", "100000"}, "-clients must be between 2 and 64, got 100000"},
		{[]string{"-acquisitions", "0"}, "-acquisitions must be between 1 and 100, got 0"},
		{[]string{"-schedules", "-5"}, "-schedules must be between 1 and 100000000, got -5"},
		{[]string{"-seed", "-1"}, `invalid value "-1" for flag -seed`},
		{[]string{"-faults", "lose-reply=-3"}, `fault "lose-reply": "-3" is not a count`},
		{[]string{"-faults", "percent=500"}, "percent must be 0-100, got 500"},
		{[]string{"-parallel", "0"}, "-parallel must be between 1 and 1024, got 0"},
		{[]string{"-recipe", "barrier", "-clients", "65"}, "-clients must be between 2 and 64, got 65"},
		// refused since
		{[]string{"-seed", "18446744073709551615", "-schedules", "10"}, "-seed 18446744073709551615 with -schedules 10 goes past the last seed; want -seed at most 18446744073709551606"},
		{[]string{"-faults", "crash=99999999999"}, `fault "crash": 99999999999 is more than 2147483647`},
		{[]string{"-deadline-ticks", "99999999999"}, "-deadline-ticks must be between 0 and 2147483647, got 99999999999"},
		{[]string{"-shrink-time", "0s"}, "-shrink-time must be positive, got 0s"},
		{[]string{"-out", ""}, "-out must name a directory"},
		{[]string{"-strategy", "exhaustive", "-symmetry", "-clients", "5"}, "-symmetry treats 2 to 4 clients as interchangeable, got -clients 5"},
		{[]string{"-strategy", "exhaustive", "-depth", "99999999999"}, "-depth must be between 0 and 2147483647, got 99999999999"},
		{[]string{"-strategy", "exhaustive", "-early-ticks", "99999999999"}, "-early-ticks must be -1 (no bound of their own) or between 0 and 2147483647, got 99999999999"},
	} {
		out := filepath.Join(t.TempDir(), "failures")
		args := append([]string{"run", "-out", out}, tc.args...)
		var stdout, stderr bytes.Buffer
		code := cli.Run(args, &stdout, &stderr)
		if code != simcli.ExitUsage || !strings.Contains(stderr.String(), tc.want) || stdout.Len() > 0 {
			t.Errorf("%v: exit %d, stderr %q, stdout %.200q; want exit 2 and %q", tc.args, code, stderr.String(), stdout.String(), tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: created %s", tc.args, out)
		}
	}
}

// TestReplay_RefusesBadWorkload: a trace file whose workload or
// configuration the harness refuses is a usage error naming the field,
// not a run.
func TestReplay_RefusesBadWorkload(t *testing.T) {
	cli := &simcli.CLI{Name: "mycheck", Recipes: []recipe.Lock{zoo.Mutex()}}
	saved, err := os.ReadFile("../harness/testdata/regress/ok-lock-crashed-waiter-is-no-orphan.trace")
	if err != nil {
		t.Fatal(err)
	}
	workload := regexp.MustCompile(`(?m)^workload clients=\d+ acquisitions=\d+`)
	for _, tc := range []struct {
		old       *regexp.Regexp
		new, want string
	}{
		{workload, "workload clients=100000 acquisitions=1", "Workload.Clients is 100000, want 0..64"},
		{workload, "workload clients=2 acquisitions=1000", "Workload.Acquisitions is 1000, want 0..100"},
		{regexp.MustCompile(`max-steps=\d+`), "max-steps=2000000000", "MaxSteps is 2000000000, want 0..1000000"},
	} {
		path := filepath.Join(t.TempDir(), "bad.trace")
		text := tc.old.ReplaceAllString(string(saved), tc.new)
		if text == string(saved) {
			t.Fatalf("%s: nothing replaced", tc.new)
		}
		os.WriteFile(path, []byte(text), 0o644)
		var stdout, stderr bytes.Buffer
		code := cli.Run([]string{"replay", path}, &stdout, &stderr)
		if code != simcli.ExitUsage || !strings.Contains(stderr.String(), tc.want) || stdout.Len() > 0 {
			t.Errorf("%s: exit %d, %q; want exit 2 and %q", tc.new, code, stderr.String(), tc.want)
		}
	}
}

// TestRun_LargestWorkloadFits: the largest workload the flags allow runs
// to its end on a good recipe: the step bound grows with it (at the
// default bound, every run ended unfinished: a false no-progress).
func TestRun_LargestWorkloadFits(t *testing.T) {
	cli := &simcli.CLI{Name: "mycheck", Recipes: []recipe.Lock{zoo.Mutex()}}
	var stdout, stderr bytes.Buffer
	code := cli.Run([]string{"run", "-clients", "64", "-acquisitions", "100", "-schedules", "1", "-parallel", "1", "-out", t.TempDir()}, &stdout, &stderr)
	if code != simcli.ExitOK || !strings.Contains(stdout.String(), "violations             0 schedules") {
		t.Errorf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
}

// TestRun_ShrinkTimeDecidesOnlyHowSmall: a shrink budget too short to
// shrink anything still reports the failure, with a trace to replay; the
// default budget shrinks the same failure to a smaller workload.
func TestRun_ShrinkTimeDecidesOnlyHowSmall(t *testing.T) {
	ex, _ := zoo.Lookup(zoo.NameDirWatch)
	herd := ex.Recipe
	herd.Name = "dirwatch"
	cli := &simcli.CLI{Name: "mycheck", Recipes: []recipe.Lock{herd}}
	shapes := map[string]string{}
	for _, budget := range []string{"1ns", "30s"} {
		var stdout, stderr bytes.Buffer
		args := []string{"run", "-recipe", "dirwatch", "-schedules", "50", "-shrink-time", budget, "-out", t.TempDir()}
		if code := cli.Run(args, &stdout, &stderr); code != simcli.ExitViolation {
			t.Fatalf("-shrink-time %s: exit %d, want %d; stderr %s", budget, code, simcli.ExitViolation, stderr.String())
		}
		shape := regexp.MustCompile(`Minimal counterexample: ([^,]+),`).FindStringSubmatch(stdout.String() + stderr.String())
		if shape == nil || !strings.Contains(stdout.String()+stderr.String(), ".trace") {
			t.Fatalf("-shrink-time %s: no counterexample reported:\n%s%s", budget, stdout.String(), stderr.String())
		}
		shapes[budget] = shape[1]
	}
	if shapes["1ns"] == shapes["30s"] {
		t.Errorf("the same counterexample (%s) with no time to shrink and with 30s: the budget is not used", shapes["1ns"])
	}
}
