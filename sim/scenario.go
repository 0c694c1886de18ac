package sim

import "github.com/zksim/zksim/check"

// A Scenario is what a systematic search (Explore) runs on every
// schedule: programs on the clients, and the judge of each run. Package
// harness makes one of every harness.Subject.
type Scenario interface {
	// Start begins a run on s, before its first step (it may reset
	// state its programs share), and returns the programs, one a
	// client, and the run's judge.
	Start(s *Sim) ([]Program, Judge)
}

// Judge judges one run of a Scenario.
type Judge interface {
	// Invariant is checked after every step, so that a state reached on
	// two paths is judged on both: nil if it holds.
	Invariant(s *Sim) *check.Violation
	// Visible counts what the checkers see happen in order (for the lock
	// workload: critical sections begun and ended): two steps that each
	// change it do not commute.
	Visible() int
	// Verdict judges a run that ended: the violation classes it shows.
	Verdict(res *Result) []check.Class
}

// New makes a run under cfg, its ensemble set up (cfg.Setup), with no
// clients yet: what a Scenario's Start is given, before Run.
func New(cfg Config, ch Chooser) (*Sim, error) { return newSim(cfg, ch) }

// Run starts one client per program and steps until they all finish or
// the run ends otherwise. A Sim runs once.
func (s *Sim) Run(programs ...Program) *Result { return s.run(programs) }
