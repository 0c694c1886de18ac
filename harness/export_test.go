package harness

import (
	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/sim"
)

// AsScenario is w as the systematic search (sim.Explore) takes it.
func AsScenario(w Subject) sim.Scenario { return scenario{w} }

// ViewLine is a line of the lines view.
type ViewLine struct {
	ID, Text string
	Ticks    int
}

// ViewLines are the lines view's lines of a trace: ticks collapsed.
func ViewLines(trace []string, vs []check.Violation) []ViewLine {
	var out []ViewLine
	for _, l := range collapseTicks(traceLines(trace, vs)) {
		out = append(out, ViewLine{l.ID, l.Text, l.tickCount()})
	}
	return out
}
