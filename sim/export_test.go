package sim

import "slices"

// Options returns the options of the step being chosen, in the order a
// Chooser's index names them (Config.Flat): what the scheduler offers
// when it calls Choose with "event".
func Options(s *Sim) []Event { return slices.Clone(s.opts) }

// Asked reports whether f says anything about which faults to inject.
func (f Faults) Asked() bool { return f.asked() }
