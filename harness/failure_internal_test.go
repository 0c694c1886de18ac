package harness

import (
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/sim"
)

// A finding whose schedule passes when run again is reported as
// nondeterminism, not shrunk into a counterexample that shows nothing.
func TestFailureReport_NondeterministicRun(t *testing.T) {
	calls := 0
	flaky := func(cfg sim.Config, ch sim.Chooser, w Workload) (*Report, error) {
		calls++
		rep := &Report{Result: &sim.Result{}}
		if calls == 1 {
			rep.Violations = []check.Violation{{Class: check.Invariant, Detail: "first run only"}}
		}
		return rep, nil
	}
	found := []finding{{class: check.Invariant, schedules: 1, index: 1, first: drawn{seed: 7, workload: Workload{Clients: 2}}}}
	flaky(sim.Config{}, nil, Workload{}) // what explore ran
	s := failureSubject{what: "programs", name: "flaky", dir: t.TempDir(), programs: true, replay: "%q"}
	got := s.report(found, 1, flaky)
	if !strings.Contains(got, "invariant: schedule 1 does not show it when run again: the programs do not run deterministically") {
		t.Fatalf("report:\n%s", got)
	}
}

// TestBlamedSteps_UnionOrNil: the HTML report highlights the checkers'
// own steps when every violation names some, and derives them otherwise.
func TestBlamedSteps_UnionOrNil(t *testing.T) {
	both := []check.Violation{{Steps: []int{40, 7}}, {Steps: []int{7, 12}}}
	if got := blamedSteps(both); !slices.Equal(got, []int{7, 12, 40}) {
		t.Errorf("blamedSteps = %v, want [7 12 40]", got)
	}
	if got := blamedSteps([]check.Violation{{Steps: []int{3}}, {}}); got != nil {
		t.Errorf("with a violation naming no step: %v, want nil", got)
	}
}
