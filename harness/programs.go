package harness

import (
	"fmt"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/sim"
)

// Programs is the Subject of client programs, one a client, with
// invariant checked after every step (nil: none): a run fails on an
// invariant violation (check.Invariant), a deadlock, a step bound or a
// program's error (sim.Result.Verdicts, worded by ExplainVerdicts). Its
// trace file's lines are "recipe programs" and "workload clients=N";
// it has no smaller shape. Programs must keep no state across runs
// (reset it in sim.Config.Setup): they run many times.
func Programs(invariant func(s *sim.Sim) error, ps ...sim.Program) Subject {
	return programs{invariant, ps}
}

type programs struct {
	invariant func(*sim.Sim) error
	ps        []sim.Program
}

// programsName is the recipe line of a run of programs. (So a recipe
// named "programs" cannot be told from them in a trace file.)
const programsName = "programs"

func (p programs) Name() string { return programsName }

func (p programs) Spec() string { return fmt.Sprintf("clients=%d", len(p.ps)) }

// Parse implements Subject: the file must have as many clients.
func (p programs) Parse(spec string) (Subject, error) {
	var n int
	if err := keyvals(splitSpec(spec), map[string]any{"clients": &n}); err != nil {
		return nil, err
	}
	if n != len(p.ps) {
		return nil, fmt.Errorf("a run of %d programs, not %d", n, len(p.ps))
	}
	return p, nil
}

func (p programs) String() string { return fmt.Sprintf("%d programs", len(p.ps)) }

func (p programs) Shape() Shape { return Shape{Clients: len(p.ps)} }

func (p programs) Resize(Shape) Subject { return p }

func (p programs) Start(s *sim.Sim) ([]sim.Program, Judge) {
	return p.ps, programsJudge{s, p.invariant}
}

// observe is the configuration's Observe of a run (not a search, which
// asks Invariant): the invariant after every step, which ends the run.
func (p programs) observe(o func(*sim.Sim, int, sim.Event) error) func(*sim.Sim, int, sim.Event) error {
	if p.invariant == nil {
		return o
	}
	return func(s *sim.Sim, _ int, _ sim.Event) error { return p.invariant(s) }
}

type programsJudge struct {
	s         *sim.Sim
	invariant func(*sim.Sim) error
}

func (j programsJudge) Invariant(s *sim.Sim) *check.Violation {
	if j.invariant == nil {
		return nil
	}
	if err := j.invariant(s); err != nil {
		return &check.Violation{Class: check.Invariant, Detail: err.Error(), Steps: checkers.Blame(s.Step())}
	}
	return nil
}

// Visible: every step may change what the invariant reads, so no two
// steps are taken to commute.
func (j programsJudge) Visible() int { return j.s.Step() }

func (j programsJudge) Report(res *sim.Result) *Report {
	vs := res.Verdicts()
	ExplainVerdicts(res, vs)
	return &Report{Result: res, Violations: vs}
}
