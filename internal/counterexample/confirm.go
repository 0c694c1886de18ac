package counterexample

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/sim"
)

// ErrNondeterministic says that a schedule, run twice, did not run the
// same: the code under test reads something the scheduler does not
// decide (global randomness, the wall clock, goroutines of its own,
// state kept across runs), so no verdict of its runs can be trusted or
// replayed.
var ErrNondeterministic = errors.New("harness: the code under test does not replay deterministically " +
	"(global randomness, the wall clock, goroutines of its own, state kept across runs?)")

// Confirm runs ce's schedule once more, traced, and compares the run
// with ce's own (its trace line by line, then its violation classes).
// A failure is reported only once confirmed: a verdict that another run
// of the same decisions would not give is the code's nondeterminism,
// not a bug the schedule shows. The error wraps ErrNondeterministic and
// names the first step where the two runs differ.
func Confirm(ce harness.Counterexample) error {
	cfg := ce.Config
	cfg.NoTrace = false
	again, err := harness.Run(cfg, sim.Replay(ce.Decisions), ce.Subject)
	if err != nil {
		return fmt.Errorf("%w: running the schedule again: %v", ErrNondeterministic, err)
	}
	first, second := ce.Report.Result.Trace, again.Result.Trace
	i := 0
	for i < len(first) && i < len(second) && first[i] == second[i] {
		i++
	}
	if i < len(first) || i < len(second) {
		return fmt.Errorf("%w: run twice, the schedule diverged at %s:\n  first run:  %s\n  second run: %s",
			ErrNondeterministic, stepOf(first, second, i), lineOr(first, i), lineOr(second, i))
	}
	if a, b := ce.Report.Classes(), again.Classes(); !slices.Equal(a, b) {
		return fmt.Errorf("%w: run twice, the schedule gave the same trace but the verdicts %v and %v",
			ErrNondeterministic, a, b)
	}
	return nil
}

// stepOf words where two traces part: the step their first differing
// line names (a trace line starts with its step), or its line number.
func stepOf(a, b []string, i int) string {
	for _, t := range [][]string{a, b} {
		if i < len(t) {
			if f := strings.Fields(t[i]); len(f) > 0 {
				return "step " + f[0]
			}
		}
	}
	return fmt.Sprintf("trace line %d", i+1)
}

func lineOr(trace []string, i int) string {
	if i < len(trace) {
		return strings.TrimSpace(trace[i])
	}
	return "(end of the run)"
}
