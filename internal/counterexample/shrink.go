package counterexample

import (
	"cmp"
	"slices"
	"sort"
	"time"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/internal/simhook"
	"github.com/zksim/zksim/sim"
)

// runSchedule runs one schedule of a Subject and judges it.
type runSchedule func(cfg sim.Config, ch sim.Chooser) (*harness.Report, error)

// runOf runs w.
func runOf(w harness.Subject) runSchedule {
	return func(cfg sim.Config, ch sim.Chooser) (*harness.Report, error) { return harness.Run(cfg, ch, w) }
}

// shrinkBudget bounds the runs one shrink may make.
const shrinkBudget = 2000

// DefaultShrinkTime is how long Minimize, ShrinkSeed and ShrinkFound look for a
// smaller counterexample unless told otherwise (rapid's
// -rapid.shrinktime default, too).
const DefaultShrinkTime = 30 * time.Second

// Minimize looks for a run of w that shows violation class, trying
// the smallest workloads first (fewer clients, then fewer acquisitions
// or rounds, up to w's), each with up to perSize seeds from
// config(seed), shrinks the first one found (see ShrinkSeed), then looks
// again at that size without the fault kinds it injected that the
// failure does not need (see fewerFaultKinds). ok is false if none was
// found. After within (wall-clock time, 0: DefaultShrinkTime) it tries
// no more sizes or seeds and shrinks what it has: the budget decides
// how small a counterexample is, never whether one is found at the
// sizes it had time for.
func Minimize(w harness.Subject, config func(seed uint64) sim.Config, class check.Class, perSize int, within time.Duration) (ce harness.Counterexample, ok bool) {
	defer simhook.KeepWorkers()() // a shrink makes up to thousands of runs
	dl := newDeadline(within)
	for _, ws := range sizes(w) {
		if dl.passed() && volume(ws) < volume(w) {
			continue // out of time: only w itself is left to try
		}
		if ce, ok := firstShrunk(ws, config, class, perSize, dl); ok {
			return fewerFaultKinds(ce, config, class, perSize, dl), true
		}
	}
	return harness.Counterexample{}, false
}

// deadline is when a shrink stops looking for smaller counterexamples.
// Wall-clock time decides only how small the result is.
type deadline struct{ at time.Time }

func newDeadline(within time.Duration) deadline {
	return deadline{time.Now().Add(cmp.Or(within, DefaultShrinkTime))}
}

func (d deadline) passed() bool { return time.Now().After(d.at) }

// firstShrunk shrinks the first of perSize seeds whose run of w under
// config(seed) shows class.
func firstShrunk(w harness.Subject, config func(seed uint64) sim.Config, class check.Class, perSize int, dl deadline) (harness.Counterexample, bool) {
	for seed := uint64(1); seed <= uint64(perSize); seed++ {
		if ce, ok := shrinkSeed(w, runOf(w), config(seed), seed, class, dl); ok {
			return ce, true
		}
		if dl.passed() {
			break
		}
	}
	return harness.Counterexample{}, false
}

// fewerFaultKinds drops from ce the fault kinds it injected that the
// failure does not need: it looks for the class again at ce's size with
// no faults at all, then with each kind's budget at 0 in turn (and those
// already found unneeded), and keeps what it finds if it injects fewer
// faults. A minimal counterexample should not
// show a crash, a pause or a lost reply that has nothing to do with the
// bug; shrinking decisions cannot always remove one (see dropFaults), a
// search without it can.
func fewerFaultKinds(ce harness.Counterexample, config func(seed uint64) sim.Config, class check.Class, perSize int, dl deadline) harness.Counterexample {
	var off []string // kinds found unneeded so far
	all := []string{}
	for _, k := range simhook.FaultKinds() {
		all = append(all, k.Name)
	}
	tries := [][]string{all}
	for _, k := range all {
		tries = append(tries, []string{k})
	}
	for _, try := range tries {
		if dl.passed() {
			return ce
		}
		if len(try) == 1 && injected(ce, try[0]) == 0 {
			continue
		}
		if len(try) == 1 {
			try = append(slices.Clone(off), try[0])
		}
		without := func(seed uint64) sim.Config {
			cfg := config(seed)
			for _, k := range simhook.FaultKinds() {
				if slices.Contains(try, k.Name) {
					*k.Budget(&cfg.Faults) = 0
				}
			}
			return cfg
		}
		if c, ok := firstShrunk(ce.Subject, without, class, perSize, dl); ok && faultCount(c) < faultCount(ce) {
			ce, off = c, try
		}
		if faultCount(ce) == 0 {
			return ce
		}
	}
	return ce
}

// injected is how many faults of the kind named ce's run injected.
func injected(ce harness.Counterexample, name string) int { return ce.Report.Result.Faults[name] }

func faultCount(ce harness.Counterexample) int {
	n := 0
	for _, c := range ce.Report.Result.Faults {
		n += c
	}
	return n
}

// sizes lists w with every number of clients from 2 (or w's, if fewer)
// and of acquisitions (or rounds) from 1 up to w's, fewest
// client-acquisitions first, w last.
func sizes(w harness.Subject) []harness.Subject {
	var out []harness.Subject
	all := w.Shape()
	for c := min(2, all.Clients); c <= all.Clients; c++ {
		for a := 1; a <= all.Each; a++ {
			out = append(out, w.Resize(harness.Shape{Clients: c, Each: a, Unit: all.Unit}))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return volume(out[i]) < volume(out[j]) })
	return out
}

// volume is a subject's client-acquisitions (or client-rounds).
func volume(w harness.Subject) int { return w.Shape().Clients * w.Shape().Each }

// ShrinkSeed runs w under cfg with the choices of NewSeeded(seed) and,
// if the run shows violation class, shrinks its decisions (see Shrink,
// then dropFaults) to a schedule that still shows it and returns that
// schedule run again with its trace. ok is false if the run does not
// show class. It stops shrinking after within (wall-clock time; 0:
// DefaultShrinkTime) and returns the smallest found by then: the budget
// decides only how small, never whether.
func ShrinkSeed(w harness.Subject, cfg sim.Config, seed uint64, class check.Class, within time.Duration) (ce harness.Counterexample, ok bool) {
	defer simhook.KeepWorkers()() // a shrink makes up to thousands of runs
	return shrinkSeed(w, runOf(w), cfg, seed, class, newDeadline(within))
}

// shrinkSeed is ShrinkSeed for w, run by run, until dl. The shrunk
// schedule keeps class and shows no class more severe than the seed's
// run did (see goal), so that its headline, and the name of the file it
// is saved in, stay the class looked for when the run was headed by it.
func shrinkSeed(w harness.Subject, run runSchedule, cfg sim.Config, seed uint64, class check.Class, dl deadline) (ce harness.Counterexample, ok bool) {
	cfg.NoTrace = true // search fast; the result is run again, traced
	var recorded []int
	rec := sim.Record(sim.NewSeeded(seed), &recorded)
	rep, err := run(cfg, rec)
	if err != nil || !shows(rep, class) {
		return harness.Counterexample{}, false
	}
	g := goal{class: class, worst: checkers.Severity(checkers.Worst(rep.Classes()))}
	fails := func(d []int) bool {
		if dl.passed() {
			return false // keep what is shrunk so far
		}
		rep, _ := run(cfg, sim.Replay(d))
		return g.met(rep)
	}
	d := sim.Shrink(recorded, fails, shrinkBudget)
	d = dropFaults(run, cfg, d, fails)
	cfg.NoTrace = false
	rep, _ = run(cfg, sim.Replay(d))
	return harness.Counterexample{Subject: w, Config: cfg, Decisions: d, Report: rep, Seed: seed}, true
}

// goal is what shrinking keeps of a failing run: its class, and a
// headline (the worst class shown) no more severe than the run's.
// Without the second, a schedule shrunk for a term-order violation can
// end showing a mutual exclusion that the original did not, and be
// saved under one class while its verdict reads another.
type goal struct {
	class check.Class
	worst int // checkers.Severity of the original run's worst class
}

func (g goal) met(rep *harness.Report) bool {
	return shows(rep, g.class) && checkers.Severity(checkers.Worst(rep.Classes())) >= g.worst
}

// perSizeSeeds is how many seeds ShrinkFound tries at each workload
// size smaller than the one found.
const perSizeSeeds = 100

// ShrinkFound makes a schedule that showed violation class a minimal
// counterexample: w showed it under cfg with the choices of
// NewSeeded(seed). It looks for the class at every smaller workload
// (fewer clients, then fewer acquisitions or rounds; programs have
// none) under cfg, perSizeSeeds seeds from
// seed each, then shrinks the decisions of the first run found, or of
// the given one (see ShrinkSeed). After within (wall-clock time, 0:
// DefaultShrinkTime) it stops looking and keeps what it has: the budget
// decides how small the counterexample is, not whether there is one.
// ok is false only if the given schedule no longer shows the class:
// what runs is not deterministic.
func ShrinkFound(w harness.Subject, cfg sim.Config, seed uint64, class check.Class, within time.Duration) (ce harness.Counterexample, ok bool) {
	defer simhook.KeepWorkers()() // a shrink makes up to thousands of runs
	dl := newDeadline(within)
	for _, s := range sizes(w) {
		if volume(s) >= volume(w) || dl.passed() {
			break
		}
		for i := range uint64(perSizeSeeds) {
			if ce, ok := shrinkSeed(s, runOf(s), cfg, seed+i, class, dl); ok {
				return ce, true
			}
			if dl.passed() {
				break
			}
		}
	}
	return shrinkSeed(w, runOf(w), cfg, seed, class, dl)
}

// Smaller lists the workloads smaller than w that Minimize and
// ShrinkFound try, fewest client-acquisitions (or client-rounds) first:
// for a search to look at in turn for a smaller counterexample.
func Smaller(w harness.Subject) []harness.Subject {
	var out []harness.Subject
	for _, s := range sizes(w) {
		if volume(s) < volume(w) {
			out = append(out, s)
		}
	}
	return out
}

func shows(rep *harness.Report, class check.Class) bool {
	return rep != nil && slices.Contains(rep.Classes(), class)
}

// dropFaults removes, one at a time, each fault of a failing schedule
// whole (the decisions that chose it) and keeps every removal after which
// the schedule still fails. sim.Shrink works on single decisions and
// chunks, and deleting or zeroing one decision of a fault shifts every
// later decision into another question, so a fault the failure does not
// need can survive it: a "minimal" counterexample would show it. Here
// every later step is asked the same questions as before.
func dropFaults(run runSchedule, cfg sim.Config, d []int, fails func([]int) bool) []int {
	for i := 0; ; {
		faults := faultChoices(run, cfg, d)
		if i >= len(faults) {
			return d
		}
		f := faults[len(faults)-1-i] // the last first: earlier ones keep their places
		c := append(slices.Clone(d[:f.at]), d[min(len(d), f.at+f.n):]...)
		if fails(c) {
			d = c
			continue // the same i is now an earlier fault
		}
		i++
	}
}

// faultChoice is where a fault step's choice sits in a decision list: n
// decisions from at.
type faultChoice struct{ at, n int }

// faultChoices runs d and lists the decisions that chose each fault: a
// random walk's "fault?" and "fault", a flat schedule's one "event"
// choice of a step that injected a fault.
func faultChoices(run runSchedule, cfg sim.Config, d []int) []faultChoice {
	ch := &labelChooser{c: sim.Replay(d), lastEvent: -1}
	var out []faultChoice
	observe := cfg.Observe
	cfg.Observe = func(s *sim.Sim, step int, ev sim.Event) error {
		if cfg.Flat && simhook.IsFault(ev) && ch.lastEvent >= 0 {
			out = append(out, faultChoice{at: ch.lastEvent, n: 1})
		}
		if observe != nil {
			return observe(s, step, ev)
		}
		return nil
	}
	run(cfg, ch)
	if !cfg.Flat {
		for i, what := range ch.labels {
			if what == "fault" && i > 0 {
				out = append(out, faultChoice{at: i - 1, n: 2})
			}
		}
	}
	return slices.DeleteFunc(out, func(f faultChoice) bool { return f.at >= len(d) })
}

// labelChooser remembers what each choice was asked for.
type labelChooser struct {
	c         sim.Chooser
	labels    []string
	lastEvent int // the index of the last "event" choice; -1 none yet
}

func (c *labelChooser) Choose(n int, what string) int {
	if what == "event" {
		c.lastEvent = len(c.labels)
	}
	c.labels = append(c.labels, what)
	return c.c.Choose(n, what)
}
