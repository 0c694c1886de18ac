package harnesstest_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/harness/harnesstest"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/internal/longtest"
	"github.com/zksim/zksim/internal/traceview"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zoo"
)

// rapidSeeds are the rapid seeds the power tests start from. rapid moves
// from its seed by adding the check's number, so that nearby seeds share
// most of their checks; these are far apart.
var rapidSeeds = []uint64{1, 0x5eed, 20251, 7340033, 1 << 40, 0x9e3779b97f4a7c15, 424242424242, 31337}

// powerSeeds are the rapid seeds a power test tries: 2 in the normal
// suite, all of rapidSeeds in the long-test mode. A test passes
// longtest.Enabled() from its own body, where scripts/test.sh finds it
// and runs it again in that mode.
func powerSeeds(long bool) []uint64 {
	if !long {
		return rapidSeeds[:2]
	}
	return rapidSeeds
}

// Check with zero options (every legal fault kind) and rapid's
// default 100 checks finds every zoo bug with its class from every rapid
// seed tried, each search stopping at the class. (Before the zero
// options meant no faults, 4 of the 17 passed: noguidretry,
// deletefirstchild, adoptdying, electunfenced.)
func TestCheck_FindsEveryZooBugOnEveryRapidSeed(t *testing.T) {
	for _, ex := range zoo.Locks() {
		t.Run(ex.Name, func(t *testing.T) {
			var at []int
			for _, seed := range powerSeeds(longtest.Enabled()) {
				n := harnesstest.Find(t, seed, harness.Lock(ex.Recipe, harness.Workload{}), harnesstest.Options{}, ex.Violation)
				if n == 0 {
					t.Errorf("rapid seed %d: no %s in 100 checks", seed, ex.Violation)
				}
				at = append(at, n)
			}
			t.Logf("%s first shown by schedule %v (of %d)", ex.Violation, at, 100*harnesstest.SchedulesPerCheck)
		})
	}
}

// enqueue is a planted bug for Check: each client adds one sequential node
// to a queue, and retries a create that failed with a connection loss
// without looking whether it was applied, so a lost reply queues it twice.
func enqueue(ctx context.Context, c *sim.Client) error {
	conn := c.Conn()
	for {
		_, err := conn.Create(ctx, "/q", nil, zkapi.Persistent)
		if err == nil || errors.Is(err, zkapi.ErrNodeExists) {
			break
		}
	}
	for {
		_, err := conn.Create(ctx, "/q/n-", nil, zkapi.PersistentSequential)
		if !errors.Is(err, zkapi.ErrConnectionLoss) {
			return err
		}
	}
}

// atMostOnePerClient is enqueue's invariant.
func atMostOnePerClient(s *sim.Sim) error {
	if n := len(s.State().Children("/q")); n > len(s.Clients()) {
		return fmt.Errorf("%d nodes queued by %d clients", n, len(s.Clients()))
	}
	return nil
}

// Check, with a zero configuration (every legal fault kind) and rapid's
// default 100 checks, finds the planted lost-reply bug from every rapid
// seed tried; with sim.Faults{None: true} it cannot.
func TestCheck_FindsAPlantedBugOnEveryRapidSeed(t *testing.T) {
	var at []int
	for _, seed := range powerSeeds(longtest.Enabled()) {
		if n := harnesstest.Find(t, seed, harness.Programs(atMostOnePerClient, enqueue, enqueue, enqueue), harnesstest.Options{Config: sim.Config{Faults: sim.Faults{None: true}}}, "invariant"); n != 0 {
			t.Errorf("rapid seed %d: no faults asked, and schedule %d lost a reply", seed, n)
		}
	}
	cfg := sim.Config{}
	for _, seed := range powerSeeds(longtest.Enabled()) {
		n := harnesstest.Find(t, seed, harness.Programs(atMostOnePerClient, enqueue, enqueue, enqueue), harnesstest.Options{Config: cfg}, "invariant")
		if n == 0 {
			t.Errorf("rapid seed %d: the invariant held in 100 checks", seed)
		}
		at = append(at, n)
	}
	t.Logf("first shown by schedule %v", at)
}

// childEnv names what TestCheck_FailingChild runs when the parent test
// starts this test binary again.
const childEnv = "ZKSIM_CHECK_CHILD"

// TestCheck_FailingChild runs only as a child of
// TestCheck_LockFailsTheTestOnce: it is a user's test that fails.
func TestCheck_FailingChild(t *testing.T) {
	dir := os.Getenv(childEnv)
	if dir == "" {
		t.Skip("run by TestCheck_LockFailsTheTestOnce")
	}
	ex, _ := zoo.Lookup(zoo.NameSplitDash)
	harnesstest.Check(t, harness.Lock(ex.Recipe, harness.Workload{}), harnesstest.Options{ArtifactDir: dir})
}

// TestCheck_FailingProgramsChild is TestCheck_FailingChild for Check.
func TestCheck_FailingProgramsChild(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("run by TestCheck_FailsTheTestOnce")
	}
	// A bound on steps keeps shrinking quick: enqueue retries without
	// pause, and a candidate schedule that never reconnects it spins.
	harnesstest.Check(t, harness.Programs(atMostOnePerClient, enqueue, enqueue), harnesstest.Options{Config: sim.Config{MaxSteps: 1000}})
}

// runChild runs one test of this binary as a child process, with dir for
// its artifacts, and returns its output; the child must fail.
func runChild(t *testing.T, test, dir string, flags ...string) string {
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^" + test + "$", "-test.v", "-rapid.seed=1"}, flags...)...)
	cmd.Env = append(os.Environ(), childEnv+"="+dir, "TMPDIR="+dir)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("%s: want exit status 1, got %v:\n%s", test, err, out)
	}
	return string(out)
}

var replayLine = regexp.MustCompile(`replay:   harnesstest\.Replay\(t, "([^"]+)", subject\)`)

// replayPaths are the trace files a failure message names in its replay
// calls.
func replayPaths(t *testing.T, out string) []string {
	var paths []string
	for _, m := range replayLine.FindAllStringSubmatch(out, -1) {
		paths = append(paths, m[1])
	}
	if len(paths) == 0 {
		t.Fatalf("no replay call in:\n%s", out)
	}
	return paths
}

// A failing Check fails its test, through the public API, with each
// class's counterexample once: the violations, at most 40 lines of trace,
// the trace file and the ReplayFile call, whose replay fails again with
// the same violations. rapid reports nothing of its own.
func TestCheck_LockFailsTheTestOnce(t *testing.T) {
	dir := t.TempDir()
	out := runChild(t, "TestCheck_FailingChild", dir)
	for _, want := range []string{"--- FAIL: TestCheck_FailingChild", "zoo/splitdash: ", "mutual-exclusion, shrunk to 2 clients x 1 acquisition",
		"report:   " + filepath.Join(dir, "TestCheck_FailingChild-zoo_splitdash-mutual-exclusion-"),
		"go test -run '^TestCheck_FailingChild$' ./harness/harnesstest"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "[rapid]") {
		t.Errorf("rapid reported too:\n%s", out)
	}
	// The test log indents the lines of a message after its first.
	out = strings.ReplaceAll(out, "\n        ", "\n")
	ex, _ := zoo.Lookup(zoo.NameSplitDash)
	for _, path := range replayPaths(t, out) {
		text, _ := os.ReadFile(path)
		f, err := harness.ParseTraceFile(string(text))
		if err != nil {
			t.Fatal(err)
		}
		ft := &fakeTB{}
		var rep *harness.Report
		ft.run(func() { rep = harnesstest.Replay(ft, path, harness.Lock(ex.Recipe, harness.Workload{})) })
		// The trace is shown as WriteTrace shows it: its last 40 lines.
		var shown strings.Builder
		traceview.Write(&shown, f.Trace, rep.Violations, traceview.View{})
		lines := strings.SplitAfter(strings.TrimSuffix(shown.String(), "\n"), "\n")
		excerpt := lines[max(0, len(lines)-40):]
		if n := strings.Count(out, strings.Join(excerpt, "")+"\n"); n != 1 {
			t.Errorf("the end of %s's trace printed %d times", path, n)
		}
		if len(excerpt) < len(lines) && strings.Contains(out, lines[0]) {
			t.Errorf("%s: more than the last 40 of %d trace lines printed", path, len(lines))
		}
		class := strings.TrimPrefix(filepath.Base(path), "TestCheck_FailingChild-zoo_splitdash-")
		class = class[:len(class)-len("-01234567.trace")]
		if ft.fatal != "" || !strings.Contains(ft.errors, "\n  "+class+": ") {
			t.Errorf("replay of %s: fatal %q, errors %q", path, ft.fatal, ft.errors)
		}
		if rep != nil && len(rep.Classes()) > 0 && string(checkers.Worst(rep.Classes())) != class {
			t.Errorf("%s: named %s, its verdict leads with %s", path, class, checkers.Worst(rep.Classes()))
		}
	}
}

// The same for Check: the programs' trace file replays with ReplayCheck.
func TestCheck_FailsTheTestOnce(t *testing.T) {
	dir := t.TempDir()
	out := runChild(t, "TestCheck_FailingProgramsChild", dir)
	if !strings.Contains(out, "invariant, shrunk to ") || !strings.Contains(out, "--- FAIL: TestCheck_FailingProgramsChild") {
		t.Errorf("no shrunk invariant violation in:\n%s", out)
	}
	reports := regexp.MustCompile(`report:   (\S+\.html)`).FindAllStringSubmatch(out, -1)
	if len(reports) == 0 {
		t.Errorf("no HTML report named in:\n%s", out)
	}
	for _, m := range reports {
		if b, err := os.ReadFile(m[1]); err != nil || !strings.Contains(string(b), "<h1>invariant") || !strings.Contains(string(b), "<dd>programs</dd>") {
			t.Errorf("report %s (%v) lacks the verdict or the recipe line", m[1], err)
		}
	}
	for _, path := range replayPaths(t, out) {
		ft := &fakeTB{}
		ft.run(func() { harnesstest.Replay(ft, path, harness.Programs(atMostOnePerClient, enqueue, enqueue)) })
		if ft.fatal != "" || !strings.Contains(ft.errors, "nodes queued by 2 clients") {
			t.Errorf("replay of %s: fatal %q, errors %q", path, ft.fatal, ft.errors)
		}
	}
}

// ReplayFile fails the test when the file names another recipe or
// replays to another trace, and passes a clean replay.
func TestReplayFile_Refuses(t *testing.T) {
	ex, _ := zoo.Lookup(zoo.NameGoZKLock)
	path := "../testdata/regress/orphan-gozk.trace"
	other, _ := zoo.Lookup(zoo.NameDirWatch)
	ft := &fakeTB{}
	ft.run(func() { harnesstest.Replay(ft, path, harness.Lock(other.Recipe, harness.Workload{})) })
	if !strings.Contains(ft.fatal, `not of recipe "zoo/dirwatch"`) {
		t.Errorf("another recipe: %q", ft.fatal)
	}
	changed := ex.Recipe
	changed.Acquire = other.Recipe.Acquire // same name, other code
	ft = &fakeTB{}
	ft.run(func() { harnesstest.Replay(ft, path, harness.Lock(changed, harness.Workload{})) })
	if !strings.Contains(ft.fatal, "diverged from the saved trace at line 1") {
		t.Errorf("changed code: %q", ft.fatal)
	}
	ft = &fakeTB{}
	ft.run(func() { harnesstest.Replay(ft, path, harness.Lock(ex.Recipe, harness.Workload{})) })
	if ft.fatal != "" || !strings.Contains(ft.errors, "orphan") {
		t.Errorf("the saved recipe: fatal %q, errors %q", ft.fatal, ft.errors)
	}
	clean := "../testdata/regress/ok-lock-session-replaced-under-create.trace"
	if rep := harnesstest.Replay(t, clean, harness.Lock(zoo.Mutex(), harness.Workload{})); !rep.OK() {
		t.Errorf("a clean trace: %v", rep.Violations)
	}
}

// CheckProgramsExhaustive covers every schedule of the leader election
// within its bounds and finds nothing: the bounded space is exhausted.
func TestCheckExhaustive_ProgramsLeaderElection(t *testing.T) {
	leaders := map[int64]bool{}
	p := elect(leaders)
	cfg := sim.Config{
		Setup:  func() { clear(leaders) },
		Faults: sim.Faults{Disconnect: 1, Crash: 1, LoseReply: 1},
	}
	res := harnesstest.CheckExhaustive(t, harness.Programs(oneLiveLeader(leaders), p, p), harnesstest.Options{Config: cfg}, sim.Bounds{Deviations: 1})
	if !res.Exhausted || res.States == 0 {
		t.Fatalf("not exhausted: %s", res.Coverage())
	}
}

// TestCheckExhaustive_ProgramsFailingChild runs only as a child of
// TestCheckExhaustive_ProgramsFailsTheTest.
func TestCheckExhaustive_ProgramsFailingChild(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("run by TestCheckExhaustive_ProgramsFailsTheTest")
	}
	// enqueue retries at once while disconnected, so a schedule that
	// never reconnects it makes no progress: the search looks past that
	// for the invariant's violation.
	harnesstest.CheckExhaustive(t, harness.Programs(atMostOnePerClient, enqueue, enqueue),
		harnesstest.Options{Config: sim.Config{Faults: sim.Faults{LoseReply: 1}, MaxSteps: 1000}}, sim.Bounds{Deviations: 2, Class: check.Invariant})
}

// A failing CheckProgramsExhaustive fails its test with what it covered
// and the counterexample, whose trace file ReplayCheck replays to the same
// violation.
func TestCheckExhaustive_ProgramsFailsTheTest(t *testing.T) {
	dir := t.TempDir()
	out := runChild(t, "TestCheckExhaustive_ProgramsFailingChild", dir)
	for _, want := range []string{"programs: systematic search: deviations <= ", "stopped at the first counterexample", "invariant, shrunk to "} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	for _, path := range replayPaths(t, out) {
		ft := &fakeTB{}
		ft.run(func() { harnesstest.Replay(ft, path, harness.Programs(atMostOnePerClient, enqueue, enqueue)) })
		if ft.fatal != "" || !strings.Contains(ft.errors, "nodes queued by 2 clients") {
			t.Errorf("replay of %s: fatal %q, errors %q", path, ft.fatal, ft.errors)
		}
	}
}

// randomData is a conn that puts a number from the global random source
// into the data of every node it creates.
type randomData struct{ zkapi.Conn }

func (c randomData) Create(ctx context.Context, path string, _ []byte, mode zkapi.CreateMode) (string, error) {
	return c.Conn.Create(ctx, path, fmt.Appendf(nil, "%d", rand.Int()), mode)
}

// TestCheck_NondeterministicChild runs only as a child of
// TestCheck_RefusesANondeterministicRecipe: a broken lock that also
// reads the global random source.
func TestCheck_NondeterministicChild(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("run by TestCheck_RefusesANondeterministicRecipe")
	}
	ex, _ := zoo.Lookup(zoo.NameSplitDash)
	r := ex.Recipe
	r.Acquire = func(ctx context.Context, c zkapi.Conn, dir, id string) (recipe.Held, error) {
		return ex.Recipe.Acquire(ctx, randomData{c}, dir, id)
	}
	harnesstest.Check(t, harness.Lock(r, harness.Workload{}), harnesstest.Options{ArtifactDir: os.Getenv(childEnv)})
}

// A recipe that does not replay gets an error that says so and where
// its two runs parted, not a verdict and a replay call that would not
// reproduce it.
func TestCheck_RefusesANondeterministicRecipe(t *testing.T) {
	out := runChild(t, "TestCheck_NondeterministicChild", t.TempDir(), "-rapid.checks=10")
	for _, want := range []string{"mutual-exclusion: not reported as a violation: harness: the code under test does not replay deterministically",
		"diverged at step "} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "replay:   ") {
		t.Errorf("a replay call for a run that does not replay:\n%s", out)
	}
}

// TestCheck_ShrinkTimeChild runs only as a child of
// TestCheck_ShrinkTimeDecidesOnlyHowSmall.
func TestCheck_ShrinkTimeChild(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("run by TestCheck_ShrinkTimeDecidesOnlyHowSmall")
	}
	ex, _ := zoo.Lookup(zoo.NameSplitDash)
	harnesstest.Check(t, harness.Lock(ex.Recipe, harness.Workload{}), harnesstest.Options{ArtifactDir: os.Getenv(childEnv)})
}

// With no time to shrink (-zksim.shrinktime=1ns) a failure is reported
// all the same, with a counterexample that replays; only its size
// differs.
func TestCheck_ShrinkTimeDecidesOnlyHowSmall(t *testing.T) {
	out := runChild(t, "TestCheck_ShrinkTimeChild", t.TempDir(), "-zksim.shrinktime=1ns", "-rapid.checks=10")
	out = strings.ReplaceAll(out, "\n        ", "\n")
	if !strings.Contains(out, "zoo/splitdash: ") || !strings.Contains(out, "mutual-exclusion, shrunk to ") {
		t.Fatalf("no failure reported:\n%s", out)
	}
	if strings.Contains(out, "mutual-exclusion, shrunk to 2 clients x 1 acquisition, ") {
		t.Errorf("shrunk to the smallest workload in no time:\n%s", out)
	}
	ex, _ := zoo.Lookup(zoo.NameSplitDash)
	for _, path := range replayPaths(t, out) {
		ft := &fakeTB{}
		ft.run(func() { harnesstest.Replay(ft, path, harness.Lock(ex.Recipe, harness.Workload{})) })
		if ft.fatal != "" || ft.errors == "" {
			t.Errorf("replay of %s: fatal %q, errors %q", path, ft.fatal, ft.errors)
		}
	}
}
