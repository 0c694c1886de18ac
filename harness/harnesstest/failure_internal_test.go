package harnesstest

import (
	"context"
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/sim"
)

// flaky is a Subject whose first run fails and whose others pass.
type flaky struct{ runs *int }

func (f flaky) Name() string                          { return "flaky" }
func (f flaky) Spec() string                          { return "clients=1" }
func (f flaky) Parse(string) (harness.Subject, error) { return f, nil }
func (f flaky) Shape() harness.Shape                  { return harness.Shape{Clients: 1} }
func (f flaky) Resize(harness.Shape) harness.Subject  { return f }
func (f flaky) Start(s *sim.Sim) ([]sim.Program, harness.Judge) {
	*f.runs++
	return []sim.Program{func(context.Context, *sim.Client) error { return nil }}, flakyJudge{*f.runs == 1}
}

type flakyJudge struct{ first bool }

func (flakyJudge) Invariant(*sim.Sim) *check.Violation { return nil }
func (flakyJudge) Visible() int                        { return 0 }
func (j flakyJudge) Report(res *sim.Result) *harness.Report {
	rep := &harness.Report{Result: res}
	if j.first {
		rep.Violations = []check.Violation{{Class: check.Invariant, Detail: "first run only"}}
	}
	return rep
}

// A finding whose schedule passes when run again is reported as
// nondeterminism, not shrunk into a counterexample that shows nothing.
func TestFailureReport_NondeterministicRun(t *testing.T) {
	w := flaky{new(int)}
	found := []finding{{class: check.Invariant, schedules: 1, index: 1, first: drawn{seed: 7, subject: w}}}
	harness.Run(sim.Config{}, sim.NewSeeded(7), w) // what explore ran
	s := failures{what: "flaky", test: "flaky", dir: t.TempDir()}
	got := s.report(found, 1)
	if !strings.Contains(got, "invariant: schedule 1 does not show it when run again: harness: the code under test does not replay deterministically") {
		t.Fatalf("report:\n%s", got)
	}
}
