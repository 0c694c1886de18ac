package linearize

import (
	"sync/atomic"

	"github.com/anishathalye/porcupine"
)

// Porcupine's own budget is wall-clock time (its timeout), so what it
// decides would depend on the machine and its load. zksim bounds the
// search by a number of model steps instead: porcupine searches one
// partition sequentially and deterministically, so the same history meets
// the bound at the same point on every machine.
const (
	// RegisterSteps bounds Register's search. The simulator's and the
	// real server's register histories (tens to hundreds of operations,
	// few unknown outcomes) take hundreds to thousands of steps.
	RegisterSteps = 1 << 20
	// timelineSteps bounds the search behind a lock timeline.
	timelineSteps = 1 << 20
)

// stepBound counts model steps and, past its limit, makes every further
// step fail, which ends porcupine's search quickly.
type stepBound struct {
	limit int64
	steps atomic.Int64 // atomic: porcupine runs the search in a goroutine
}

// bounded returns m with its steps counted against a limit. The count is
// deterministic when the history is one partition (several are searched
// in parallel).
func bounded(m porcupine.Model, steps int64) (porcupine.Model, *stepBound) {
	b := &stepBound{limit: steps}
	step := m.Step
	m.Step = func(state, input, output interface{}) (bool, interface{}) {
		if b.steps.Add(1) > b.limit {
			return false, state
		}
		return step(state, input, output)
	}
	m.StepContext = nil
	return m, b
}

// reached reports whether the search met the limit: the history was
// neither found linearizable nor shown not to be.
func (b *stepBound) reached() bool { return b.steps.Load() > b.limit }
