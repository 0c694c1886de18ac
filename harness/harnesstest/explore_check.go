package harnesstest

import (
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/sim"
)

// CheckExhaustive explores every schedule of recipe's standard workload
// within b (see harness.Explore): opts.Workload is run as given (default 5
// clients x 3 acquisitions: keep it small, 2 or 3 clients x 1), under
// opts.Config's fault budgets. It fails t with the first counterexample
// (with deepening, one with the fewest deviations), saved as a trace
// file and reported like CheckRecipe's, and logs what it covered. It
// returns the exploration for tests that assert on coverage.
func CheckExhaustive(t *testing.T, recipe lock.Recipe, opts CheckOptions, b sim.Bounds) *harness.Exploration {
	t.Helper()
	w := opts.Workload
	w.Recipe = recipe
	res, err := harness.Explore(t.Context(), opts.Config, w, b)
	if err != nil {
		t.Fatal(err)
	}
	noteCoverage(t, &res.Exercised)
	subject := failureSubject{what: recipe.Name, name: t.Name() + "-" + recipe.Name, dir: opts.ArtifactDir,
		replay: "harnesstest.ReplayFile(t, %q, recipe)"}
	if ce := res.Counterexample; ce != nil {
		subject.failSearch(t, res.Exploration, check.Worst(ce.Report.Classes()), *ce)
	}
	t.Logf("%s: systematic search: %s", subject.what, res.Coverage())
	return res
}

// CheckProgramsExhaustive is CheckExhaustive for client programs (see
// Check): it explores every schedule of programs under cfg's fault budgets
// within b, checking invariant (nil: none) after every step and judging
// each run that ends (deadlock, no progress, the programs' errors). It
// fails t with the first counterexample, saved as a trace file that
// ReplayCheck replays, and logs what it covered.
//
// A state is known by the ensemble, the messages in flight and what each
// program has been told, so programs must keep no state but what follows
// from that (they run many times: reset shared state in cfg.Setup). Every
// step counts as seen by the invariant, which may read state of the
// programs' own, so no two steps are taken to commute: sleep sets prune
// nothing here.
func CheckProgramsExhaustive(t *testing.T, cfg sim.Config, invariant func(s *sim.Sim) error, b sim.Bounds, programs ...sim.Program) *sim.Exploration {
	t.Helper()
	res, err := sim.Explore(t.Context(), cfg, programScenario{invariant, programs}, b)
	if err != nil {
		t.Fatal(err)
	}
	noteCoverage(t, &res.Exercised)
	subject := failureSubject{what: "programs", name: t.Name(), programs: true,
		replay: "harnesstest.ReplayCheck(t, %q, cfg, invariant, programs...)"}
	if f := res.Failure; f != nil {
		cfg = b.RunConfig(cfg) // the search's own configuration, traced
		rep, err := programsRunner(invariant, programs)(cfg, &sim.Decisions{List: f.Decisions}, harness.Workload{})
		if err != nil {
			t.Fatal(err)
		}
		ce := harness.Counterexample{Workload: harness.Workload{Clients: len(programs)}, Config: cfg, Decisions: f.Decisions, Report: rep}
		subject.failSearch(t, res, f.Class, ce)
	}
	t.Logf("%s: systematic search: %s", subject.what, res.Coverage())
	return res
}

// failSearch fails t with what a systematic search covered and its
// counterexample, saved.
func (s failureSubject) failSearch(t *testing.T, res *sim.Exploration, class check.Class, ce harness.Counterexample) {
	t.Helper()
	var msg strings.Builder
	msg.WriteString(s.what + ": systematic search: " + res.Coverage() + "\n\n")
	s.writeCounterexample(&msg, class, ce)
	t.Fatal(msg.String())
}

// programScenario is client programs with an invariant, as a sim.Scenario.
type programScenario struct {
	invariant func(*sim.Sim) error
	programs  []sim.Program
}

// Start implements sim.Scenario.
func (p programScenario) Start(s *sim.Sim) ([]sim.Program, sim.Judge) {
	return p.programs, programJudge{s, p.invariant}
}

type programJudge struct {
	s         *sim.Sim
	invariant func(*sim.Sim) error
}

// Invariant implements sim.Judge.
func (j programJudge) Invariant(s *sim.Sim) *check.Violation {
	if j.invariant == nil {
		return nil
	}
	if err := j.invariant(s); err != nil {
		return &check.Violation{Class: check.Invariant, Detail: err.Error(), Steps: check.Blame(s.Step())}
	}
	return nil
}

// Visible implements sim.Judge: every step may change what the invariant
// reads.
func (j programJudge) Visible() int { return j.s.Step() }

// Verdict implements sim.Judge.
func (programJudge) Verdict(res *sim.Result) []check.Class {
	var classes []check.Class
	for _, v := range res.Verdicts() {
		if !slices.Contains(classes, v.Class) {
			classes = append(classes, v.Class)
		}
	}
	return classes
}
