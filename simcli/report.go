package simcli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/internal/counterexample"
	"github.com/zksim/zksim/sim"
)

// tally is what a run saw, in schedule order.
type tally struct {
	schedules int
	failing   int // schedules with at least one violation
	byClass   map[check.Class]int
	wakeups   int
	changes   int
	maxWoken  int
	first     *failed
	stopped   error // why the run ended before its plan did; nil if it did not
	exercised sim.Coverage
}

type failed struct {
	seed    uint64
	t       int           // its schedule
	message string        // the worst class's first violation
	classes []check.Class // worst first
	trace   string        // the saved counterexample, once reported
}

func (t *tally) add(o outcome, seed uint64) {
	t.schedules++
	for _, c := range o.classes {
		t.byClass[c]++
	}
	t.wakeups += o.wakeups
	t.changes += o.changes
	t.maxWoken = max(t.maxWoken, o.maxWoken)
	t.exercised.Add(o.exercised)
	if len(o.classes) > 0 {
		t.failing++
		if t.first == nil {
			classes := slices.Clone(o.classes)
			sortBySeverity(classes)
			t.first = &failed{seed: seed, t: o.t, classes: classes, message: firstMessage(o.violations, classes[0])}
		}
	}
}

// describe is the run's setting in one line (recipe, workload, faults,
// strategy): what every shard of one run shares.
func (rc runConfig) describe() string {
	var extra []string
	isLock := rc.recipe.Name != ""
	if isLock && rc.recipe.AcquireRead != nil && rc.workload.ReadPercent != 50 {
		extra = append(extra, fmt.Sprintf("%d%% reads", rc.workload.ReadPercent))
	}
	switch {
	case rc.followers == 1:
		extra = append(extra, "1 follower")
	case rc.followers >= 0:
		extra = append(extra, fmt.Sprintf("%d followers", rc.followers))
	}
	if isLock {
		extra = append(extra, rc.lockSetting()...)
	}
	s := fmt.Sprintf("%s, %s", rc.subject.Name(), rc.subject.Shape())
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s + fmt.Sprintf(", faults %s, %s", rc.faults, rc.strategy.title)
}

// lockSetting words the lock workload's sequence, deadlines and
// fencing, for describe.
func (rc runConfig) lockSetting() []string {
	wl := rc.workload
	var extra []string
	if wl.SequenceStart != 0 {
		extra = append(extra, fmt.Sprintf("sequence from %d, %s", wl.SequenceStart, rc.overflow))
	} else if rc.overflow.String() != "pin" {
		extra = append(extra, "overflow "+rc.overflow.String())
	}
	switch {
	case wl.TimeoutTicks == 0:
		extra = append(extra, "no deadlines")
	case wl.TimeoutTicks != 12 || wl.TimeoutPercent != 50:
		extra = append(extra, fmt.Sprintf("deadline %d ticks for %d%%", wl.TimeoutTicks, wl.TimeoutPercent))
	}
	if wl.Unfenced {
		extra = append(extra, "unfenced")
	}
	return extra
}

// header says at once what the run explores and checks.
func (rc runConfig) header(w io.Writer) {
	seeds := rc.plan.seeds(rc.plan.count())
	if rc.plan.shards > 1 {
		all := plan{seed: rc.plan.seed, total: rc.plan.total, shards: 1}
		seeds = fmt.Sprintf("%s (shard %d/%d of %s)", seeds, rc.plan.shard, rc.plan.shards, all.seeds(all.count()))
	}
	if rc.budget > 0 {
		seeds += fmt.Sprintf(", time limit %v", rc.budget)
	}
	fmt.Fprintf(w, "%s run: %s, %s\n", rc.cli.name(), rc.describe(), seeds)
	fmt.Fprintf(w, "checked: %s\n\n", rc.checks())
}

// checks names the run's checkers, the invariant first: the systematic
// search checks it after every step, a seeded run on the whole run (a
// lock's with the exact interval check).
func (rc runConfig) checks() string {
	when := " (exact interval check)"
	if rc.strategy.systematic {
		when = " after every step"
	}
	if rc.recipe.Name == "" {
		if c, ok := rc.subject.(interface{ Checks(everyStep bool) string }); ok {
			return c.Checks(rc.strategy.systematic)
		}
		if rc.strategy.systematic {
			return "the invariant after every step, the verdict of every run"
		}
		return "the verdict of every run"
	}
	return fmt.Sprintf("%s%s, herd, %s, orphans, deadlock, progress", rc.exclusion(), when, rc.fencingChecks())
}

// exclusion names what the recipe's critical sections are checked for.
func (rc runConfig) exclusion() string {
	switch {
	case rc.recipe.Leases > 1:
		return fmt.Sprintf("at most %d leases at once", rc.recipe.Leases)
	case rc.recipe.AcquireRead != nil:
		return "reader/writer exclusion"
	}
	return "mutual exclusion"
}

// fencingChecks names the checks of the tokens: fencing, and for an
// election (recipe.Lock.Terms) its terms first.
func (rc runConfig) fencingChecks() string {
	if rc.recipe.Terms {
		return "terms (one leader per term, growing), fencing"
	}
	return "fencing"
}

// summaryText reports the counts.
func (rc runConfig) summaryText(w io.Writer, t *tally, elapsed time.Duration) {
	if t.stopped != nil {
		fmt.Fprintf(w, "  %-22s %s (%v)\n", "covered", rc.plan.seeds(t.schedules), t.stopped)
	}
	rate := float64(t.schedules) / max(elapsed.Seconds(), 1e-9)
	workers := fmt.Sprintf("%d workers", rc.parallel)
	if rc.parallel == 1 {
		workers = "1 worker"
	}
	fmt.Fprintf(w, "  %-22s %d\n  %-22s %.0f/s (%v, %s)\n", "schedules", t.schedules, "rate", rate, elapsed.Round(time.Millisecond), workers)
	fmt.Fprintf(w, "  %-22s %d schedules\n", "violations", t.failing)
	writeClasses(w, t.byClass)
	herd := 0.0
	if t.changes > 0 {
		herd = float64(t.wakeups) / float64(t.changes)
	}
	fmt.Fprintf(w, "  %-22s %.2f clients woken per change (max %d)\n", "herd", herd, t.maxWoken)
	if rc.verbosity >= 0 {
		writeExercised(w, &t.exercised)
	}
}

func writeClasses(w io.Writer, byClass map[check.Class]int) {
	classes := make([]check.Class, 0, len(byClass))
	for c := range byClass {
		classes = append(classes, c)
	}
	slices.Sort(classes)
	for _, c := range classes {
		fmt.Fprintf(w, "    %-20s %d\n", c, byClass[c])
	}
}

// reportFailure finds the smallest workload and schedule that show the
// first failure's class, saves it, says how to replay it, and returns the
// saved trace's path ("" if it could not be saved) and the counterexample
// (nil if none was found).
func (rc runConfig) reportFailure(w io.Writer, f *failed) (string, *harness.Counterexample) {
	class := f.classes[0]
	ce, ok := counterexample.Minimize(rc.subject, func(seed uint64) sim.Config { return rc.config(seed, true) }, class, 60, rc.shrink)
	if !ok { // no smaller run shows it: shrink the schedule that did
		ce, ok = counterexample.ShrinkSeed(rc.subject, rc.config(f.seed, true), f.seed, class, rc.shrink)
	}
	if !ok {
		// Runs are deterministic: this is a bug in the simulator.
		fmt.Fprintf(w, "\nfirst failure: seed %d, %s; run again, it showed no %s: a nondeterministic run, please report it\n",
			f.seed, joinClasses(f.classes), class)
		return "", nil
	}
	if err := counterexample.Confirm(ce); err != nil {
		fmt.Fprintf(w, "\nfirst failure: seed %d, %s; not reported as a violation: %v\n", f.seed, joinClasses(f.classes), err)
		return "", nil
	}
	fmt.Fprintf(w, "\nfirst failure: seed %d, %s. Minimal counterexample: %s, %d trace lines:\n",
		f.seed, joinClasses(f.classes), ce.Subject.Shape(), len(ce.Report.Result.Trace))
	// Named after the class its verdict leads with, which shrinking keeps
	// to class when the failure was headed by it.
	if cs := ce.Report.Classes(); len(cs) > 0 {
		class = checkers.Worst(cs)
	}
	return rc.writeFailure(w, rc.out, failureName(rc.subject.Name(), class, f.seed, ce), ce), &ce
}

// writeFailure saves a counterexample's trace and its HTML report into
// dir, writes its violations, its trace (in -view's view), the files and
// the command that replays it with this program, and returns the trace's
// path ("" if it could not be saved).
func (rc runConfig) writeFailure(w io.Writer, dir, name string, ce harness.Counterexample) string {
	return counterexample.Write(w, dir, name, rc.cli.replayCommand(), ce, rc.view)
}

// progress shows how a run goes: on a terminal a status line redrawn in
// place, elsewhere (a pipe, a CI log) a line every period. It is not a
// verdict: wall-clock time is fine here.
type progress struct {
	w        io.Writer
	terminal bool
	every    time.Duration // off a terminal; 0: never
	start    time.Time
	last     time.Time
	drawn    bool
}

func newProgress(w io.Writer, every time.Duration, start time.Time) *progress {
	terminal := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			terminal = true
		}
	}
	return &progress{w: w, terminal: terminal, every: every, start: start, last: start}
}

func (p *progress) update(t *tally, pl plan, budget time.Duration) {
	now := time.Now()
	switch {
	case p.terminal && (!p.drawn || now.Sub(p.last) >= 200*time.Millisecond):
		p.status(t, pl, budget, now)
	case !p.terminal && p.every > 0 && now.Sub(p.last) >= p.every:
		elapsed := now.Sub(p.start)
		fmt.Fprintf(p.w, "progress: %s in %v, %d schedules (%.0f/s), %d with violations\n", pl.seeds(t.schedules),
			elapsed.Round(time.Second), t.schedules, float64(t.schedules)/max(elapsed.Seconds(), 1e-9), t.failing)
	default:
		return
	}
	p.last = now
}

// status redraws the terminal's status line: done (of total), rate,
// violations, time left.
func (p *progress) status(t *tally, pl plan, budget time.Duration, now time.Time) {
	p.drawn = true
	elapsed := now.Sub(p.start)
	rate := float64(t.schedules) / max(elapsed.Seconds(), 1e-9)
	done, eta := fmt.Sprint(t.schedules), budget-elapsed
	if total := pl.count(); total >= 0 {
		done += fmt.Sprintf("/%d", total)
		left := time.Duration(float64(total-t.schedules)/rate) * time.Second
		if budget <= 0 || left < eta {
			eta = left
		}
	}
	fmt.Fprintf(p.w, "\r  %s schedules  %.0f/s  violations %d  ETA %v   ", done, rate, t.failing, eta.Round(time.Second))
}

func (p *progress) done() {
	if p.terminal && p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
