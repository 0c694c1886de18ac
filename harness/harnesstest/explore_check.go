package harnesstest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"
)

// CheckExhaustive explores every schedule of recipe's standard workload
// within b (see harness.Explore): opts.Workload is run as given (default 5
// clients x 3 acquisitions: keep it small, 2 or 3 clients x 1), under
// opts.Config's fault budgets (zero: sim.OneOfEach(), one fault of every
// legal kind; sim.Faults{None: true}: none). It fails t with the first
// counterexample (with deepening, one with the fewest deviations),
// searched for again at every smaller workload (within opts.ShrinkTime)
// and confirmed, saved as a trace file and reported like CheckRecipe's,
// and logs what it covered. It returns the exploration for tests that
// assert on coverage.
func CheckExhaustive(t *testing.T, recipe recipe.Lock, opts CheckOptions, b sim.Bounds) *harness.Exploration {
	t.Helper()
	w := opts.Workload
	w.Recipe = recipe
	s := failureSubject{what: recipe.Name, test: t.Name(), dir: opts.ArtifactDir, shrinkTime: opts.ShrinkTime,
		replay: "harnesstest.ReplayFile(t, %q, recipe)", run: runSubject}
	return s.exhaust(t, opts.Config, w, b)
}

// exhaust runs the systematic search of w, and fails t with its
// counterexample, made as small as the search finds it.
func (s failureSubject) exhaust(t *testing.T, cfg sim.Config, w harness.Subject, b sim.Bounds) *harness.Exploration {
	t.Helper()
	cfg.Faults = cfg.Faults.Or(sim.OneOfEach())
	res, err := harness.Explore(t.Context(), cfg, w, b)
	if err != nil {
		t.Fatal(err)
	}
	noteCoverage(t, &res.Exercised)
	if ce := res.Counterexample; ce != nil {
		class := res.Failure.Class
		s.failSearch(t, res.Exploration, class, smallerSearch(t.Context(), cfg, w, b, class, *ce, s.shrinkWithin()))
	}
	t.Logf("%s: systematic search: %s", s.what, res.Coverage())
	return res
}

// smallerSearch searches again, within the same bounds, for class at
// each workload smaller than w, smallest first, and returns the first
// counterexample found, or ce if none is found within the time given: a
// counterexample's workload is shrunk before its decisions in every
// strategy, and the search's decisions are already its fewest
// deviations.
func smallerSearch(ctx context.Context, cfg sim.Config, w harness.Subject, b sim.Bounds, class check.Class, ce harness.Counterexample, within time.Duration) harness.Counterexample {
	until := time.Now().Add(within)
	b.Class = class
	for _, smaller := range harness.Smaller(w) {
		left := time.Until(until)
		if left <= 0 {
			break
		}
		b.Budget = left
		res, err := harness.Explore(ctx, cfg, smaller, b)
		if err == nil && res.Counterexample != nil {
			return *res.Counterexample
		}
	}
	return ce
}

// CheckProgramsExhaustive is CheckExhaustive for client programs (see
// Check): it explores every schedule of programs under cfg's fault budgets
// (zero: sim.OneOfEach()) within b, checking invariant (nil: none) after
// every step and judging each run that ends (deadlock, no progress, the
// programs' errors). It fails t with the first counterexample, confirmed
// and saved as a trace file that ReplayCheck replays, and logs what it
// covered.
//
// A state is known by the ensemble, the messages in flight and what each
// program has been told, so programs must keep no state but what follows
// from that (they run many times: reset shared state in cfg.Setup). Every
// step counts as seen by the invariant, which may read state of the
// programs' own, so no two steps are taken to commute: sleep sets prune
// nothing here.
func CheckProgramsExhaustive(t *testing.T, cfg sim.Config, invariant func(s *sim.Sim) error, b sim.Bounds, programs ...sim.Program) *sim.Exploration {
	t.Helper()
	cfg.Faults = cfg.Faults.Or(sim.OneOfEach())
	res, err := sim.Explore(t.Context(), cfg, programScenario{invariant, programs}, b)
	if err != nil {
		t.Fatal(err)
	}
	noteCoverage(t, &res.Exercised)
	subject := failureSubject{what: "programs", test: t.Name(), programs: true,
		replay: "harnesstest.ReplayCheck(t, %q, cfg, invariant, programs...)", run: programsRunner(invariant, programs)}
	if f := res.Failure; f != nil {
		cfg = b.RunConfig(cfg) // the search's own configuration, traced
		w := harness.Workload{Clients: len(programs)}
		rep, err := subject.run(cfg, &sim.Decisions{List: f.Decisions}, w)
		if err != nil {
			t.Fatal(err)
		}
		ce := harness.Counterexample{Workload: w, Subject: w, Config: cfg, Decisions: f.Decisions, Report: rep}
		subject.failSearch(t, res, f.Class, ce)
	}
	t.Logf("%s: systematic search: %s", subject.what, res.Coverage())
	return res
}

// failSearch fails t with what a systematic search covered and its
// counterexample, confirmed and saved.
func (s failureSubject) failSearch(t *testing.T, res *sim.Exploration, class check.Class, ce harness.Counterexample) {
	t.Helper()
	var msg strings.Builder
	msg.WriteString(s.what + ": systematic search: " + res.Coverage() + "\n\n")
	// The search's run may carry a violation its own invariant check saw
	// (harness.Explore): confirm against a fresh traced run.
	again := ce
	if rep, err := s.run(ce.Config, &sim.Decisions{List: ce.Decisions}, ce.Subject); err == nil {
		again.Report = rep
	}
	run := func(cfg sim.Config, ch sim.Chooser) (*harness.Report, error) { return s.run(cfg, ch, ce.Subject) }
	if err := harness.ConfirmRun(run, again); err != nil {
		fmt.Fprintf(&msg, "%s: not reported as a violation: %v\n", class, err)
	} else {
		s.writeCounterexample(&msg, class, ce)
	}
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
