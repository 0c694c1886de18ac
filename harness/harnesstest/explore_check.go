package harnesstest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/counterexample"
	"github.com/zksim/zksim/sim"
)

// CheckExhaustive explores every schedule of w within b (see
// harness.Explore), w run as given (keep it small: 2 or 3 clients x 1),
// under opts.Config's fault budgets (zero: sim.OneOfEach(), one fault of
// every legal kind; sim.Faults{None: true}: none). It fails t with the
// first counterexample (with deepening, one with the fewest deviations),
// searched for again at every smaller shape (within opts.ShrinkTime)
// and confirmed, saved as a trace file and reported like Check's, and
// logs what it covered. It returns the exploration for tests that
// assert on coverage.
//
// A state is known by the ensemble, the messages in flight and what each
// program has been told, so programs must keep no state but what follows
// from that (reset shared state in opts.Config.Setup). A judge's Visible
// says which steps may commute: Programs' says none, so sleep sets prune
// nothing there.
func CheckExhaustive(t *testing.T, w harness.Subject, opts Options, b sim.Bounds) *harness.Exploration {
	t.Helper()
	cfg := opts.Config
	cfg.Faults = faultsOr(cfg.Faults, sim.OneOfEach())
	res, err := harness.Explore(t.Context(), cfg, w, b)
	if err != nil {
		t.Fatal(err)
	}
	noteCoverage(t, &res.Exercised)
	s := newFailures(t, w, opts)
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
	for _, smaller := range counterexample.Smaller(w) {
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

// failSearch fails t with what a systematic search covered and its
// counterexample, confirmed and saved.
func (s failures) failSearch(t *testing.T, res *sim.Exploration, class check.Class, ce harness.Counterexample) {
	t.Helper()
	var msg strings.Builder
	msg.WriteString(s.what + ": systematic search: " + res.Coverage() + "\n\n")
	// The search's run may carry a violation its own invariant check saw
	// (harness.Explore): confirm against a fresh traced run.
	again := ce
	if rep, err := harness.Run(ce.Config, sim.Replay(ce.Decisions), ce.Subject); err == nil {
		again.Report = rep
	}
	if err := counterexample.Confirm(again); err != nil {
		s.writeUnconfirmed(&msg, class, err)
	} else {
		s.writeCounterexample(&msg, class, ce)
	}
	t.Fatal(msg.String())
}
