package simcli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/simcli"
	"github.com/zksim/zksim/zoo"
)

// A program of one line gives run, replay, list and merge to the user's
// recipes.
func ExampleCLI() {
	mine := zoo.Mutex()
	mine.Name = "mylock"
	cli := &simcli.CLI{Name: "mycheck", Recipes: []recipe.Lock{mine}, Docs: map[string]string{"mylock": "my lock"}}
	cli.Run([]string{"list"}, os.Stdout, os.Stderr)
	// Output:
	// recipes (-recipe):
	//   mylock                 my lock
	//
	// faults (-faults kind=count,...; default: percent=10,lose-request=2,lose-reply=2,disconnect=2,crash=1,pause=1,reap=1,abandon=1):
	//   lose-request           a request is lost before the server sees it (connection loss, nothing applied); alias drop-request (serve's old name)
	//   lose-reply             a request is applied and its reply lost (the lost create); alias drop-reply (serve's old name)
	//   disconnect             a client's connection drops; it reconnects and re-registers its watches
	//   crash                  a client stops for good; its session lingers until it expires
	//   pause                  a client stops for longer than its session timeout (a GC pause)
	//   reap                   the container reaper deletes the empty lock directory
	//   abandon                a client gives up its session on its own for a new one; the old session and its nodes live on until it expires (CURATOR-498)
	//   reorder                ILLEGAL: a reply overtakes earlier notifications (breaks ZooKeeper's order)
	//   percent                chance (0-100) that a step injects a fault when one is possible
	//
	// strategies (-strategy):
	//   random                 uniform random walk over the enabled events
	//   pct                    probabilistic concurrency testing: client priorities with 2 change points
	//   exhaustive             every schedule within -deviations, -depth and -early-ticks (faults: the counts of each kind), fewest deviations first
}

// TestMain_UserProgram builds a user's program (testdata/mycheck: main
// calls simcli.Main with a recipe zksim does not know), finds its bug,
// and replays the saved failure with the command the hint names, as
// printed: the binary as it was invoked.
func TestMain_UserProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "mycheck")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/mycheck").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "run", "-recipe", "mylock", "-schedules", "5", "-out", dir).Output()
	if code := exitCode(err); code != 1 {
		t.Fatalf("mycheck run: exit %d (%v)\n%s", code, err, out)
	}
	if !strings.HasPrefix(string(out), "mycheck run: mylock, 5 clients x 3 acquisitions") {
		t.Fatalf("mycheck run: no header:\n%s", out)
	}
	trace, hint := savedTrace(t, string(out))
	if filepath.Dir(trace) != dir || !strings.HasPrefix(filepath.Base(trace), "mylock-mutual-exclusion-seed") {
		t.Errorf("trace %s, want mylock-mutual-exclusion-seed... in %s", trace, dir)
	}
	if want := bin + " replay " + trace; hint != want {
		t.Errorf("hint %q, want %q", hint, want)
	}
	runHint(t, "", hint)
	replayed, err := exec.Command(bin, "replay", "-view", "raw", trace).Output()
	if code := exitCode(err); code != 1 {
		t.Errorf("mycheck replay -view raw: exit %d", code)
	}
	saved, _ := os.ReadFile(trace)
	if _, savedTrace, _ := strings.Cut(string(saved), "\ntrace\n"); !strings.HasPrefix(string(replayed), savedTrace) {
		t.Errorf("replay differs from the saved trace:\n%s", replayed)
	}
}

// TestMain_GoRunHint: a user's program started with go run (from the
// package's parent directory) prints a hint that is the same go run,
// which replays the failure from there.
func TestMain_GoRunHint(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	dir := t.TempDir()
	cmd := exec.Command("go", "run", "./mycheck", "run", "-recipe", "mylock", "-schedules", "5", "-out", dir)
	cmd.Dir = "testdata"
	out, err := cmd.Output()
	if code := exitCode(err); code != 1 {
		t.Fatalf("go run ./mycheck run: exit %d (%v)\n%s", code, err, out)
	}
	trace, hint := savedTrace(t, string(out))
	if want := "go run ./mycheck replay " + filepath.ToSlash(trace); hint != want {
		t.Errorf("hint %q, want %q", hint, want)
	}
	runHint(t, "testdata", hint)
}

// savedTrace is the trace file and the replay command a run's output
// names.
func savedTrace(t *testing.T, out string) (trace, hint string) {
	t.Helper()
	tr := regexp.MustCompile(`(?m)^trace: +(\S+)$`).FindStringSubmatch(out)
	re := regexp.MustCompile(`(?m)^replay: +(.+)$`).FindStringSubmatch(out)
	if tr == nil || re == nil {
		t.Fatalf("no trace or replay line:\n%s", out)
	}
	return tr[1], re[1]
}

// runHint runs a replay hint as printed, in dir, and returns its output:
// it must replay the failure (exit 1, the verdict).
func runHint(t *testing.T, dir, hint string) string {
	t.Helper()
	args := strings.Fields(hint)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if code := exitCode(err); code != 1 || !strings.Contains(string(out), "verdict:\n  mutual-exclusion") {
		t.Errorf("%s (in %q): exit %d (%v)\n%s", hint, dir, code, err, out)
	}
	return string(out)
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
