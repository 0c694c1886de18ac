package harness

import (
	"context"
	"slices"

	"github.com/zksim/zksim/sim"
)

// Exploration is a systematic search of a workload (sim.Explore): what it
// covered, and its counterexample.
type Exploration struct {
	*sim.Exploration
	// Counterexample is the first failing schedule found (with
	// deepening, a shortest one), run again with its trace; nil if none.
	Counterexample *Counterexample
}

// Explore searches every schedule of w within the bounds (see
// sim.Explore): the invariants (mutual and reader/writer exclusion, a
// barrier's entry and exit) are checked after every step, the other
// checkers at the end of each run. A counterexample is run again with
// its trace.
func Explore(ctx context.Context, cfg sim.Config, w Subject, b sim.Bounds) (*Exploration, error) {
	if err := validate(w); err != nil {
		return nil, err
	}
	res, err := sim.Explore(ctx, cfg, scenario{w}, b)
	if err != nil {
		return nil, err
	}
	x := &Exploration{Exploration: res}
	f := res.Failure
	if f == nil {
		return x, nil
	}
	cfg = f.Config // the search's own configuration, traced
	rep, err := Run(cfg, sim.Replay(f.Decisions), w)
	if err != nil {
		return nil, err
	}
	if f.Invariant != nil && !slices.Contains(rep.Classes(), f.Class) {
		rep.Violations = append(rep.Violations, *f.Invariant)
	}
	ce := Counterexample{Subject: w, Config: cfg, Decisions: f.Decisions, Report: rep}
	x.Counterexample = &ce
	return x, nil
}
