package harness

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/simhook"
	"github.com/zksim/zksim/report"
)

// htmlReport is what the HTML report of a saved failure shows: its
// verdict, what ran, its critical sections and expiries, and its trace.
func htmlReport(file TraceFile, w Subject, rep *Report, seed uint64, replay string) report.Failure {
	f := report.Failure{
		Title:      file.Recipe,
		Faults:     describeFaults(file),
		Replay:     replay,
		Violations: rep.Violations,
		Notes:      rep.Notes,
		Clients:    w.Shape().Clients,
		Workload:   describe(w),
		Expiries:   rep.expiries,
		Trace:      rep.Result.Trace,
		Seed:       fmt.Sprintf("%d, shrunk to %d decisions (the trace file replays them)", seed, len(file.Decisions)),
	}
	if seed == 0 {
		f.Seed = fmt.Sprintf("none: %d decisions (the trace file replays them)", len(file.Decisions))
	}
	if rep.history != nil {
		f.Holds = rep.history.Holds
	}
	f.Steps = blamedSteps(rep.Violations)
	return f
}

// blamedSteps is the union of the steps the checkers blame and the steps
// of the violations' causes (Chain), in order, or nil when some violation
// names none (then the report derives them from the violations' wording
// and the trace).
func blamedSteps(vs []check.Violation) []int {
	var steps []int
	for _, v := range vs {
		if len(v.Steps) == 0 {
			return nil
		}
		steps = append(steps, v.Steps...)
		for _, l := range v.Chain {
			steps = append(steps, l.Step)
		}
	}
	slices.Sort(steps)
	return slices.Compact(steps)
}

// ticks words a number of ticks: "1 tick", "6 ticks".
func ticks(n int) string {
	if n == 1 {
		return "1 tick"
	}
	return fmt.Sprintf("%d ticks", n)
}

// describe words what ran in one line: its String, or its Shape.
func describe(w Subject) string {
	if s, ok := w.(fmt.Stringer); ok {
		return s.String()
	}
	return w.Shape().String()
}

// String words the workload in one line, for a failure's report.
func (w lockWorkload) String() string {
	w = w.withDefaults()
	s := fmt.Sprintf("%d clients x %d acquisitions of %s, holding %s", w.Clients, w.Acquisitions, w.Dir, ticks(w.HoldTicks))
	if w.Recipe.AcquireRead != nil {
		s += fmt.Sprintf(", %d%% reads", w.ReadPercent)
	}
	if w.TimeoutTicks > 0 {
		s += fmt.Sprintf(", deadline %s for %d%%", ticks(w.TimeoutTicks), w.TimeoutPercent)
	} else {
		s += ", no deadlines"
	}
	if w.Unfenced {
		s += ", unfenced"
	}
	if w.SequenceStart != 0 {
		s += fmt.Sprintf(", sequence from %d", w.SequenceStart)
	}
	return s
}

// String words the workload in one line, for a failure's report.
func (w barrierWorkload) String() string {
	w = w.withDefaults()
	late := "arriving together"
	if w.LatePercent > 0 {
		late = fmt.Sprintf("%d%% of arrivals a tick late", w.LatePercent)
	}
	if w.Single {
		return fmt.Sprintf("single barrier %s: 1 controller working %s, %d waiters, %s", w.Dir, ticks(w.WorkTicks), w.Clients-1, late)
	}
	return fmt.Sprintf("%d clients x %d rounds of the double barrier %s, inside %s, %d tries to enter, %s",
		w.Clients, w.Rounds, w.Dir, ticks(w.WorkTicks), w.Attempts, late)
}

// describeFaults is the fault budget of a run, the kinds it allows only.
func describeFaults(file TraceFile) string {
	fl := file.Config.Faults
	var parts []string
	for _, k := range simhook.FaultKinds() {
		if n := *k.Budget(&fl); n > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", k.Name, n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return fmt.Sprintf("percent=%d %s", fl.Percent, strings.Join(parts, " "))
}
