package harness

import (
	"fmt"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/report"
	"github.com/zksim/zksim/sim"
)

// A Subject is a workload the harness checks whole, zksim's or a user's:
// programs on the clients and the judge of their run. Run runs it once,
// Explore searches it, harnesstest shrinks its failures (a smaller
// Shape first, through Resize), SaveFailure saves them as trace files
// whose recipe line is its Name and workload line its Spec, and Replay
// runs a file again as the Subject its Parse makes of that line. Lock,
// Barrier and Programs make Subjects. A Subject that also has a
// Validate() error method is validated before it runs; one with a
// String method is described by it in a failure's HTML report (else by
// its Shape).
type Subject interface {
	// Name is what a trace file's recipe line says ran: the recipe's
	// name, or "programs".
	Name() string
	// Spec is its settings in one line, a trace file's workload line
	// (one space between fields; a dir=PATH field names the directory a
	// column view of its trace leaves out).
	Spec() string
	// Parse is a Subject like this one (its recipe, its programs) with
	// the settings spec says: what a trace file replays.
	Parse(spec string) (Subject, error)
	// Shape is its size, defaults applied.
	Shape() Shape
	// Resize is the same Subject at another size: a shrinker tries
	// every size smaller than a failure's.
	Resize(Shape) Subject
	// Start begins a run on s, before its first step (see sim.Scenario):
	// it may set the ensemble up and add observers, and returns the
	// programs, one a client, and the run's judge.
	Start(s *sim.Sim) ([]sim.Program, Judge)
}

// Judge judges one run of a Subject: as sim.Judge, whose Verdict is
// its Report's classes.
type Judge interface {
	// Invariant is checked after every step of a systematic search: nil
	// if it holds.
	Invariant(s *sim.Sim) *check.Violation
	// Visible counts what the checkers see happen in order: two steps
	// that each change it do not commute (s.Step() when any may).
	Visible() int
	// Report judges a run that ended.
	Report(res *sim.Result) *Report
}

// Shape is a workload's size: its clients, and what each does (Each
// acquisitions of a lock, rounds of a barrier: Unit). A shape of Each 0
// is not shrunk.
type Shape struct {
	Clients, Each int
	Unit          string // "acquisitions" or "rounds"; "" when each client does one thing (a single barrier)
}

// String words the shape: "5 clients x 3 acquisitions".
func (s Shape) String() string {
	if s.Unit == "" {
		return fmt.Sprintf("%d clients", s.Clients)
	}
	return fmt.Sprintf("%d clients x %d %s", s.Clients, s.Each, s.Unit)
}

// Run runs w once under cfg with choices from ch and judges the run.
func Run(cfg sim.Config, ch sim.Chooser, w Subject) (*Report, error) {
	if err := validate(w); err != nil {
		return nil, err
	}
	if p, ok := unwrap(w).(programs); ok {
		cfg.Observe = p.observe(cfg.Observe)
	}
	s, err := sim.New(cfg, ch)
	if err != nil {
		return nil, err
	}
	programs, j := w.Start(s)
	r := j.Report(s.Run(programs...))
	if sp, ok := j.(spent); ok {
		sp.done()
	}
	return r, nil
}

// spent is a Judge whose room a later run may reuse once its Report is
// made: Run, which alone holds the Judge, tells it so.
type spent interface{ done() }

// unwrap is the Subject w wraps, if it wraps one (with an Unwrap
// method, as package gozksim's do), else w.
func unwrap(w Subject) Subject {
	for {
		u, ok := w.(interface{ Unwrap() Subject })
		if !ok {
			return w
		}
		w = u.Unwrap()
	}
}

// validate is w's own Validate, if it has one.
func validate(w Subject) error {
	if v, ok := w.(interface{ Validate() error }); ok {
		return v.Validate()
	}
	return nil
}

// scenario is a Subject as the systematic search takes it.
type scenario struct{ Subject }

// Start implements sim.Scenario.
func (sc scenario) Start(s *sim.Sim) ([]sim.Program, sim.Judge) {
	programs, j := sc.Subject.Start(s)
	return programs, verdicts{j}
}

// Validate is the Subject's, for sim.Explore to call first.
func (sc scenario) Validate() error { return validate(sc.Subject) }

// verdicts is a Judge as sim.Judge: its verdict is its report's.
type verdicts struct{ Judge }

// Verdict implements sim.Judge.
func (j verdicts) Verdict(res *sim.Result) []check.Class { return j.Report(res).Classes() }

// expiriesOf lists, for the HTML report, the client whose session
// expired, if any.
func expiriesOf(s *sim.Sim, session int64) []report.Expiry {
	var out []report.Expiry
	for _, c := range s.Clients() {
		if c.Session() == session {
			out = append(out, report.Expiry{Step: s.Step(), Client: c.Index()})
		}
	}
	return out
}
