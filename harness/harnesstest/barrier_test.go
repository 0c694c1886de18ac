package harnesstest_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/harness/harnesstest"
	"github.com/zksim/zksim/internal/longtest"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// The good barriers pass Check at its defaults: every legal fault
// kind.
func TestCheck_BarrierGood(t *testing.T) {
	harnesstest.Check(t, harness.Barrier(zoo.DoubleBarrier(), harness.BarrierWorkload{}), harnesstest.Options{})
}

// And CheckExhaustive of a barrier at small bounds, one fault of each kind.
func TestCheckExhaustive_BarrierGood(t *testing.T) {
	w := harness.Barrier(zoo.DoubleBarrier(), harness.BarrierWorkload{Clients: 2, Rounds: 1})
	res := harnesstest.CheckExhaustive(t, w, harnesstest.Options{}, sim.Bounds{Deviations: 1})
	if !res.Exhausted {
		t.Fatalf("not exhausted: %s", res.Coverage())
	}
}

// Check with zero options, in rapid's default 100 checks, finds
// every exhibit of the barrier zoo with its class from every rapid seed
// tried (2, 8 with ZKSIM_LONG=1), stopping each search at the class.
func TestCheck_BarrierFindsEveryZooExhibitOnEveryRapidSeed(t *testing.T) {
	for _, ex := range zoo.Barriers() {
		t.Run(ex.Name, func(t *testing.T) {
			var at []int
			for _, seed := range powerSeeds(longtest.Enabled()) {
				n := harnesstest.Find(t, seed, harness.Barrier(ex.Barrier, harness.BarrierWorkload{}), harnesstest.Options{}, ex.Violation)
				if n == 0 {
					t.Errorf("rapid seed %d: no %s in 100 checks", seed, ex.Violation)
				}
				at = append(at, n)
			}
			t.Logf("%s first shown by schedule %v (of %d)", ex.Violation, at, 100*harnesstest.SchedulesPerCheck)
		})
	}
}

// TestCheck_BarrierFailingChild runs only as a child of
// TestCheck_BarrierReportsLikeLock.
func TestCheck_BarrierFailingChild(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("run by TestCheck_BarrierReportsLikeLock")
	}
	ex, _ := zoo.Lookup(zoo.NameDirLeave)
	harnesstest.Check(t, harness.Barrier(ex.Barrier, harness.BarrierWorkload{}), harnesstest.Options{ArtifactDir: os.Getenv(childEnv)})
}

// A failing Check fails its test as Check does: every class
// found, each shrunk and saved under its own name, with a
// ReplayBarrierFile call (valid Go) that replays it, the go test command
// that runs it, and no line of rapid's.
func TestCheck_BarrierReportsLikeLock(t *testing.T) {
	dir := t.TempDir()
	out := runChild(t, "TestCheck_BarrierFailingChild", dir)
	if strings.Contains(out, "[rapid]") {
		t.Errorf("rapid reported too:\n%s", out)
	}
	header := regexp.MustCompile(`barrier/zoo/dirleave: (\d+) violation classes in`).FindStringSubmatch(out)
	if header == nil || header[1] == "1" {
		t.Fatalf("want several classes reported:\n%s", out)
	}
	out = strings.ReplaceAll(out, "\n        ", "\n")
	calls := regexp.MustCompile(`replay:   harnesstest\.Replay\(t, "([^"]+)", subject\)\n`).FindAllStringSubmatch(out, -1)
	if len(calls) < 2 || !strings.Contains(out, "cd ") || !strings.Contains(out, "go test -run '^TestCheck_BarrierFailingChild$' ./harness/harnesstest") {
		t.Fatalf("want a replay call and a go test command per class:\n%s", out)
	}
	ex, _ := zoo.Lookup(zoo.NameDirLeave)
	var names []string
	for _, m := range calls {
		names = append(names, m[1])
		ft := &fakeTB{}
		ft.run(func() { harnesstest.Replay(ft, m[1], harness.Barrier(ex.Barrier, harness.BarrierWorkload{})) })
		class := regexp.MustCompile(`barrier_zoo_dirleave-([a-z-]+)-[0-9a-f]{8}\.trace$`).FindStringSubmatch(m[1])
		if ft.fatal != "" || class == nil || !strings.Contains(ft.errors, "\n  "+class[1]+": ") {
			t.Errorf("replay of %s: fatal %q, errors %q", m[1], ft.fatal, ft.errors)
		}
	}
	slices.Sort(names)
	if len(slices.Compact(names)) != len(calls) {
		t.Errorf("two classes saved in one file: %v", names)
	}
}
