package harnesstest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/harness/harnesstest"
	"github.com/zksim/zksim/sim"
)

// A run of programs saves as "recipe programs" with only the number of
// programs for its workload, parses back, and replays with ReplayCheck.
func TestTraceFile_Programs(t *testing.T) {
	cfg := sim.Config{Faults: sim.DefaultFaults()}
	var recorded []int
	rec := sim.Record(sim.NewSeeded(3), &recorded)
	res, err := sim.Run(cfg, rec, enqueue, enqueue, enqueue)
	if err != nil {
		t.Fatal(err)
	}
	f := harness.TraceFile{Recipe: "programs", Workload: "clients=3", Config: cfg, Decisions: recorded, Trace: res.Trace}
	text := f.String()
	if !strings.HasPrefix(text, "zksim-trace v1\nrecipe programs\nworkload clients=3\nserver ") {
		t.Fatalf("header:\n%s", text[:200])
	}
	parsed, err := harness.ParseTraceFile(text)
	if err != nil {
		t.Fatal(err)
	}
	if parsed.Recipe != "programs" || parsed.String() != text {
		t.Fatalf("does not round-trip:\n%s", parsed.String())
	}
	path := t.TempDir() + "/programs.trace"
	writeFile(t, path, text)
	rep := harnesstest.Replay(t, path, harness.Programs(nil, enqueue, enqueue, enqueue))
	if rep.Result.Steps != res.Steps {
		t.Errorf("replayed %d steps of %d", rep.Result.Steps, res.Steps)
	}
	ft := &fakeTB{}
	ft.run(func() { harnesstest.Replay(ft, path, harness.Programs(nil, enqueue, enqueue)) })
	if !strings.Contains(ft.fatal, "a trace of 3 programs, not of 2 programs") {
		t.Errorf("two programs for three: %q", ft.fatal)
	}
	bad, err := harness.ParseTraceFile(strings.Replace(text, "clients=3", "clients=3 hold=1", 1))
	if err == nil {
		_, err = harness.Replay(bad, harness.Programs(nil, enqueue, enqueue, enqueue))
	}
	if !errors.Is(err, harness.ErrTrace) || !strings.Contains(err.Error(), `unknown field "hold=1"`) {
		t.Errorf("a lock workload setting in a programs file: %v", err)
	}
}
