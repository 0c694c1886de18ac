package harness_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/counterexample"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// A barrier failure is minimized to the fewest clients and rounds,
// saved as a trace file naming the barrier workload and an HTML report,
// and the file replays byte for byte to the same verdict.
func TestBarrierTraceFile_MinimizedSavedReplayed(t *testing.T) {
	ex, _ := zoo.Lookup(zoo.NameLeaveEarly)
	w := harness.Barrier(ex.Barrier, harness.BarrierWorkload{Clients: 3, Rounds: 2})
	config := func(seed uint64) sim.Config { return sim.Config{Faults: barrierFaults, Server: fakezkFollowers(seed)} }
	ce, ok := counterexample.Minimize(w, config, check.BarrierLeave, 60, 0)
	if !ok {
		t.Fatal("no barrier-leave")
	}
	if got := ce.Subject.Shape().String(); got != "2 clients x 1 rounds" {
		t.Errorf("minimized to %s, want 2 clients x 1 rounds", got)
	}
	dir := t.TempDir()
	tracePath, htmlPath, err := harness.SaveFailure(dir, "leaveearly", ce, nil)
	if err != nil || htmlPath == "" {
		t.Fatalf("saved %q %q: %v", tracePath, htmlPath, err)
	}
	text, _ := os.ReadFile(tracePath)
	if !strings.Contains(string(text), "\nrecipe barrier/zoo/leaveearly\nworkload barrier clients=2 rounds=1 ") {
		t.Errorf("trace file header:\n%.300s", text)
	}
	f, err := harness.ParseTraceFile(string(text))
	if err != nil || !strings.HasPrefix(f.Workload, "barrier ") {
		t.Fatalf("parse: %v, workload %q", err, f.Workload)
	}
	rep, err := harness.Replay(f, harness.Barrier(ex.Barrier, harness.BarrierWorkload{}))
	if err != nil || !slices.Equal(rep.Classes(), ce.Report.Classes()) {
		t.Fatalf("replay: %v, classes %v, want %v", err, rep.Classes(), ce.Report.Classes())
	}
	page, _ := os.ReadFile(htmlPath)
	if !strings.Contains(string(page), "2 clients x 1 rounds of the double barrier /barriers/b") {
		t.Errorf("the HTML report does not describe the barrier workload")
	}
}

// A barrier workload's line prints back as it parsed, every field kept:
// a single barrier, nobody late, another node.
func TestBarrierTraceFile_RoundTrip(t *testing.T) {
	w := harness.Barrier(zoo.DoubleBarrier(), harness.BarrierWorkload{Clients: 4, WorkTicks: 3, Attempts: 1, LatePercent: -1, Single: true, Dir: "/b/one"})
	var recorded []int
	rec := sim.Record(sim.NewSeeded(1), &recorded)
	rep, err := harness.Run(sim.Config{}, rec, w)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path, _, err := harness.SaveFailure(dir, "single", harness.Counterexample{Subject: w, Decisions: recorded, Report: &harness.Report{Result: rep.Result}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(path)
	f, err := harness.ParseTraceFile(string(text))
	if err != nil || f.String() != string(text) {
		t.Fatalf("round trip: %v\n%s\nwant\n%s", err, f.String(), text)
	}
	parsed, err := harness.Barrier(zoo.DoubleBarrier(), harness.BarrierWorkload{}).Parse(f.Workload)
	if err != nil {
		t.Fatal(err)
	}
	_, got := parsed.(interface {
		BarrierSettings() (recipe.Barrier, harness.BarrierWorkload)
	}).BarrierSettings()
	if got.Clients != 4 || got.Rounds != 2 || got.WorkTicks != 3 || got.Attempts != 1 || got.LatePercent != -1 || !got.Single || got.Dir != "/b/one" {
		t.Errorf("parsed %+v", got)
	}
	if _, err := harness.Replay(f, parsed); err != nil {
		t.Error(err)
	}
}

// The saved barrier traces (zksim run's, of the zoo under barrier/)
// replay byte for byte with their violation.
func TestBarrierTraceFile_Saved(t *testing.T) {
	files, _ := filepath.Glob("testdata/barrier/*.trace")
	if len(files) == 0 {
		t.Fatal("no saved barrier traces")
	}
	for _, path := range files {
		text, _ := os.ReadFile(path)
		f, err := harness.ParseTraceFile(string(text))
		if err != nil || !strings.HasPrefix(f.Workload, "barrier ") {
			t.Fatalf("%s: %v", path, err)
		}
		ex, ok := zoo.Lookup(f.Recipe)
		if !ok {
			t.Fatalf("%s: unknown recipe %q", path, f.Recipe)
		}
		rep, err := harness.Replay(f, harness.Barrier(ex.Barrier, harness.BarrierWorkload{}))
		if err != nil || !slices.Contains(rep.Classes(), ex.Violation) {
			t.Errorf("%s: %v, classes %v, want %s", path, err, rep.Classes(), ex.Violation)
		}
	}
}
