package harness_test

import (
	"io"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/counterexample"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// SaveCounterexample names a file after what it holds: two failures of
// one test and class save side by side, and the same failure saved again
// keeps its name, so no later run overwrites the file an earlier replay
// hint names.
func TestSaveCounterexample_NamesAreUnique(t *testing.T) {
	ex, _ := zoo.Lookup(zoo.NameSplitDash)
	w := harness.Lock(ex.Recipe, harness.Workload{Clients: 2, Acquisitions: 1})
	dir := t.TempDir()
	save := func(seed uint64) string {
		var recorded []int
		rec := sim.Record(sim.NewSeeded(seed), &recorded)
		cfg := sim.Config{Faults: sim.DefaultFaults()}
		rep, err := harness.Run(cfg, rec, w)
		if err != nil {
			t.Fatal(err)
		}
		ce := harness.Counterexample{Subject: w, Config: cfg, Decisions: recorded, Report: rep, Seed: seed}
		return counterexample.Save(io.Discard, dir, "TestX-zoo/splitdash-mutual-exclusion", ce, func(p string) string { return p })
	}
	a, b, again := save(1), save(2), save(1)
	name := regexp.MustCompile(`^TestX-zoo_splitdash-mutual-exclusion-[0-9a-f]{8}\.trace$`)
	if !name.MatchString(filepath.Base(a)) || a == b || a != again {
		t.Errorf("seed 1: %s, seed 2: %s, seed 1 again: %s", a, b, again)
	}
}
