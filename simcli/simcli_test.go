package simcli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/simcli"
)

// A program of one line gives run, replay, list and merge to the user's
// recipes.
func ExampleCLI() {
	mine := lock.MutexRecipe()
	mine.Name = "mylock"
	cli := &simcli.CLI{Name: "mycheck", Recipes: []lock.Recipe{mine}, Docs: map[string]string{"mylock": "my lock"}}
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
// and replays the saved failure with the command the hint names.
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
	trace := filepath.Join(dir, "mylock-mutual-exclusion.trace")
	hint := "replay:   go run ./simcli/testdata/mycheck replay " + trace + "\n"
	if !strings.HasPrefix(string(out), "mycheck run: mylock, 5 clients x 3 acquisitions") || !strings.Contains(string(out), hint) {
		t.Fatalf("mycheck run: no header or no hint %q:\n%s", hint, out)
	}
	replayed, err := exec.Command(bin, "replay", "-view", "raw", trace).Output()
	if code := exitCode(err); code != 1 || !strings.Contains(string(replayed), "verdict:\n  mutual-exclusion") {
		t.Errorf("mycheck replay: exit %d\n%s", code, replayed)
	}
	saved, _ := os.ReadFile(trace)
	if _, savedTrace, _ := strings.Cut(string(saved), "\ntrace\n"); !strings.HasPrefix(string(replayed), savedTrace) {
		t.Errorf("replay differs from the saved trace:\n%s", replayed)
	}
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
