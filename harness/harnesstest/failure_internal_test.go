package harnesstest

import (
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/sim"
)

// A finding whose schedule passes when run again is reported as
// nondeterminism, not shrunk into a counterexample that shows nothing.
func TestFailureReport_NondeterministicRun(t *testing.T) {
	calls := 0
	flaky := func(cfg sim.Config, ch sim.Chooser, w harness.Subject) (*harness.Report, error) {
		calls++
		rep := &harness.Report{Result: &sim.Result{}}
		if calls == 1 {
			rep.Violations = []check.Violation{{Class: check.Invariant, Detail: "first run only"}}
		}
		return rep, nil
	}
	found := []finding{{class: check.Invariant, schedules: 1, index: 1, first: drawn{seed: 7, subject: harness.Workload{Clients: 2}}}}
	flaky(sim.Config{}, nil, harness.Workload{}) // what explore ran
	s := failureSubject{what: "programs", test: "flaky", dir: t.TempDir(), programs: true, replay: "%q", run: flaky}
	got := s.report(found, 1)
	if !strings.Contains(got, "invariant: schedule 1 does not show it when run again: harness: the code under test does not replay deterministically") {
		t.Fatalf("report:\n%s", got)
	}
}
