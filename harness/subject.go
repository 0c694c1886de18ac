package harness

import (
	"fmt"

	"github.com/zksim/zksim/report"
	"github.com/zksim/zksim/sim"
)

// A Subject is a workload the harness checks whole: it runs one schedule
// and judges it (Check), is searched by sim.Explore (sim.Scenario), and
// its failures are minimized (Minimize, ShrinkSeed), explored (Explore),
// saved as trace files with HTML reports (SaveFailure) and replayed
// (Replay). The lock Workload and the BarrierWorkload are subjects; so
// that a trace file can say which one ran, there are no others (the
// interface's other methods are the harness's own).
type Subject interface {
	sim.Scenario
	// Check runs one schedule under cfg with choices from ch and judges
	// it with every checker of the workload.
	Check(cfg sim.Config, ch sim.Chooser) (*Report, error)
	// Name is the recipe's: a trace file's recipe line.
	Name() string
	// Shape is the workload's size.
	Shape() Shape
	// Path is the recipe's directory (or node), defaults applied: a
	// trace's column view follows it.
	Path() string

	defaulted() Subject
	withShape(Shape) Subject
	save(f *TraceFile) // its recipe and workload lines
}

// Shape is a workload's size: its clients, and what each does (Each
// acquisitions of a lock, rounds of a barrier: Unit).
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

// Check implements Subject: RunWorkload.
func (w Workload) Check(cfg sim.Config, ch sim.Chooser) (*Report, error) {
	return RunWorkload(cfg, ch, w)
}

// Name implements Subject.
func (w Workload) Name() string { return w.Recipe.Name }

// Shape implements Subject.
func (w Workload) Shape() Shape {
	return Shape{Clients: w.Clients, Each: w.Acquisitions, Unit: "acquisitions"}
}

// Path implements Subject.
func (w Workload) Path() string { return w.withDefaults().Dir }

func (w Workload) defaulted() Subject { return w.withDefaults() }

func (w Workload) withShape(s Shape) Subject {
	w.Clients, w.Acquisitions = s.Clients, s.Each
	return w
}

func (w Workload) save(f *TraceFile) { f.Recipe, f.Workload = w.Recipe.Name, w.withDefaults() }

// Check implements Subject: RunBarrier, its report as a Report.
func (w BarrierWorkload) Check(cfg sim.Config, ch sim.Chooser) (*Report, error) {
	rep, err := RunBarrier(cfg, ch, w)
	if err != nil {
		return nil, err
	}
	return &Report{Result: rep.Result, Violations: rep.Violations, Herd: rep.Herd, expiries: rep.expiries}, nil
}

// Name implements Subject.
func (w BarrierWorkload) Name() string { return w.Recipe.Name }

// Shape implements Subject: the single barrier has one round.
func (w BarrierWorkload) Shape() Shape {
	if w.Single {
		return Shape{Clients: w.Clients, Each: 1}
	}
	return Shape{Clients: w.Clients, Each: w.Rounds, Unit: "rounds"}
}

// Path implements Subject.
func (w BarrierWorkload) Path() string { return w.withDefaults().Dir }

func (w BarrierWorkload) defaulted() Subject { return w.withDefaults() }

func (w BarrierWorkload) withShape(s Shape) Subject {
	w.Clients = s.Clients
	if !w.Single {
		w.Rounds = s.Each
	}
	return w
}

func (w BarrierWorkload) save(f *TraceFile) {
	d := w.withDefaults()
	f.Recipe, f.Barrier = w.Recipe.Name, &d
}

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
