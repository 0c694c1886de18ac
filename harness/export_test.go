package harness

import (
	"github.com/zksim/zksim/sim"
)

// AsScenario is w as the systematic search (sim.Explore) takes it.
func AsScenario(w Subject) sim.Scenario { return scenario{w} }
