package simcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/simhook"
	"github.com/zksim/zksim/sim"
)

// plan is which schedules a run explores. Schedule k (k = 0, 1, ...) runs
// seed+k. Shard I of N takes the k with k mod N = I, in order, so its
// schedule t is k = I + t*N: the shards of one run cover its seeds
// exactly, whether the run has a schedule count or only a time limit.
type plan struct {
	seed          uint64
	total         int // schedules over all shards; 0: no limit (a time limit)
	shard, shards int
}

const maxSchedules = 100000000

func newPlan(seed uint64, schedules int, shard string, unbounded bool) (plan, error) {
	i, n, err := parseShard(shard)
	if err != nil {
		return plan{}, err
	}
	p := plan{seed: seed, total: schedules, shard: i, shards: n}
	switch {
	case unbounded:
		p.total = 0
	case schedules < 1 || schedules > maxSchedules:
		return plan{}, fmt.Errorf("-schedules must be between 1 and %d, got %d", maxSchedules, schedules)
	case seed > math.MaxUint64-uint64(schedules-1):
		// Seeds past 2^64-1 would wrap to 0: another run's schedules.
		return plan{}, fmt.Errorf("-seed %d with -schedules %d goes past the last seed; want -seed at most %d",
			seed, schedules, uint64(math.MaxUint64)-uint64(schedules-1))
	}
	return p, nil
}

// seedOf is the seed of the shard's schedule t.
func (p plan) seedOf(t int) uint64 { return p.seed + uint64(p.shard) + uint64(t)*uint64(p.shards) }

// count is the number of schedules of the shard; -1: no limit.
func (p plan) count() int {
	switch {
	case p.total == 0:
		return -1
	case p.shard >= p.total:
		return 0
	}
	return (p.total - p.shard + p.shards - 1) / p.shards
}

// seeds words the seeds of the shard's first n schedules (n < 0: all,
// without limit).
func (p plan) seeds(n int) string {
	if n == 0 {
		return "no seeds"
	}
	last := ""
	if n > 0 {
		last = fmt.Sprint(p.seedOf(n - 1))
	}
	if p.shards == 1 {
		return fmt.Sprintf("seeds %d..%s", p.seedOf(0), last)
	}
	return fmt.Sprintf("seeds %d..%s step %d", p.seedOf(0), last, p.shards)
}

// outcome is what one schedule showed.
type outcome struct {
	t        int
	classes  []check.Class
	wakeups  int
	changes  int
	maxWoken int
	trace    string
	err      error
	// violations are a failing schedule's findings.
	violations []check.Violation
	// exercised is the run's Result.Coverage, not a copy: an outcome is
	// copied as it is handed on, and a Coverage is some 1.6 kB.
	exercised *sim.Coverage
}

// runOne runs and checks the shard's schedule t.
func (rc runConfig) runOne(t int) outcome {
	seed := rc.plan.seedOf(t)
	rep, err := harness.Run(rc.config(seed, rc.trace), sim.NewSeeded(seed), rc.subject)
	o := outcome{t: t, err: err}
	if err != nil {
		return o
	}
	o.classes, o.exercised = rep.Classes(), &rep.Result.Coverage
	if !rep.OK() {
		o.violations = rep.Violations
	}
	for _, n := range rep.Herd {
		o.wakeups += n
		o.changes++
		o.maxWoken = max(o.maxWoken, n)
	}
	if rc.trace {
		o.trace = rc.showTrace(rep)
	}
	return o
}

// exploreSeeds runs the plan's schedules on rc.parallel workers until
// they are done or ctx ends, and hands each outcome to each in schedule
// order, so that what each sees (counts, traces, the first failure) is
// what a sequential run sees; each returns false to stop the run. It
// returns how many schedules were handed over: always schedules 0..n-1.
func (rc runConfig) exploreSeeds(ctx context.Context, each func(outcome) bool) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	return inOrder(rc.work(ctx), func(o outcome) bool {
		if !each(o) {
			cancel()
			return false
		}
		return true
	})
}

// batch is how many schedules a worker takes at a time. Handing each
// outcome over on its own woke the collecting goroutine some ten thousand
// times a second on two cores, and that goroutine then competed with the
// workers for them.
const batch = 32

// work starts the workers and returns their outcomes, in batches of
// consecutive schedules, closed when they have all stopped. A worker takes
// batches from a shared counter and checks ctx before taking one, never
// within it: every schedule taken is finished, so the schedules run are
// always 0..n-1.
func (rc runConfig) work(ctx context.Context) <-chan []outcome {
	limit := rc.plan.count()
	var next atomic.Int64
	results := make(chan []outcome, rc.parallel)
	var wg sync.WaitGroup
	for range rc.parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer simhook.KeepWorkers()()
			for ctx.Err() == nil {
				first := int(next.Add(batch) - batch)
				n := batch
				if limit >= 0 {
					if first >= limit {
						return
					}
					n = min(n, limit-first)
				}
				out := make([]outcome, n)
				for i := range out {
					out[i] = rc.runOne(first + i)
				}
				results <- out
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()
	return results
}

// inOrder hands the outcomes to each in schedule order, until each
// returns false, and returns how many it handed over.
func inOrder(results <-chan []outcome, each func(outcome) bool) (done int) {
	pending := map[int][]outcome{} // by the first schedule of the batch
	stopped := false
	for b := range results {
		pending[b[0].t] = b
		for next, ok := pending[done]; ok && !stopped; next, ok = pending[done] {
			delete(pending, done)
			for _, o := range next {
				done++
				if stopped = !each(o); stopped {
					break
				}
			}
		}
	}
	if !stopped && len(pending) > 0 {
		panic("simcli: invariant: every schedule taken is finished")
	}
	return done
}

// errInterrupted is the cause of a run's end on Ctrl-C or SIGTERM.
var errInterrupted = errors.New("interrupted")

// stopSignals end a run as Ctrl-C does: SIGTERM is how Kubernetes,
// timeout(1) and a cancelled CI job stop a process, and its default
// effect (death) would leave -json, -junit and -summary unwritten.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// interruptible returns a context that Ctrl-C (SIGINT) or SIGTERM
// cancels with cause errInterrupted, and the function that releases it.
// After the first, the signals have their default effect again: a
// second one ends the process, for instance during a long minimization.
func interruptible() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, stopSignals...)
	released := make(chan struct{})
	go func() {
		select {
		case <-sig:
			signal.Stop(sig)
			cancel(errInterrupted)
		case <-released:
		}
	}()
	return ctx, func() {
		signal.Stop(sig)
		close(released)
		cancel(nil)
	}
}

// explore runs the simulated exploration and reports it; it returns the
// exit code.
func (rc runConfig) explore(ctx context.Context, stdout, stderr io.Writer) int {
	if rc.verbosity >= 0 {
		rc.header(stdout)
	}
	if rc.budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, rc.budget, errTimeUp)
		defer cancel()
	}
	start := time.Now()
	// Every strategy today is seeded; a systematic one will have its own
	// exploration here, and the same report.
	t, err := rc.tallySeeds(ctx, stdout, stderr, start)
	if err != nil {
		fmt.Fprintf(stderr, "%s run: %v\n", rc.cli.name(), err)
		return ExitCouldNotRun
	}
	t.stopped = rc.stopReason(ctx, t.schedules)
	elapsed := time.Since(start)
	rc.summaryText(stdout, t, elapsed)
	return rc.verdict(stdout, stderr, t, elapsed)
}

// tallySeeds explores the plan's seeds, printing traces (-trace) and
// progress as it goes.
func (rc runConfig) tallySeeds(ctx context.Context, stdout, stderr io.Writer, start time.Time) (*tally, error) {
	t := &tally{byClass: map[check.Class]int{}}
	progressTo := stderr
	if rc.verbosity < 0 {
		progressTo = io.Discard
	}
	prog := newProgress(progressTo, rc.progress, start)
	defer prog.done()
	var err error
	rc.exploreSeeds(ctx, func(o outcome) bool {
		if o.err != nil {
			err = fmt.Errorf("seed %d: %w", rc.plan.seedOf(o.t), o.err)
			return false
		}
		if o.trace != "" { // (-trace) an empty write is still a system call
			io.WriteString(stdout, o.trace)
		}
		t.add(o, rc.plan.seedOf(o.t))
		if len(o.classes) > 0 {
			rc.ci.failure(rc, o.t, rc.plan.seedOf(o.t), o.violations)
			rc.failureLine(stdout, o)
		}
		prog.update(t, rc.plan, rc.budget)
		return len(o.classes) == 0 || !rc.failfast
	})
	return t, err
}

// failureLine writes, with -v, the failing schedule o in one line: its
// seed, its classes worst first, the worst class's first violation.
func (rc runConfig) failureLine(w io.Writer, o outcome) {
	if rc.verbosity < 1 {
		return
	}
	classes := worstFirst(o.violations)
	fmt.Fprintf(w, "FAIL seed %d (schedule %d): %s: %s\n", rc.plan.seedOf(o.t), o.t, joinClasses(classes), firstMessage(o.violations, classes[0]))
}

// verdict reports the first failure, if any, writes the -summary file,
// the -json summary and the -junit report, and returns the exit code.
func (rc runConfig) verdict(stdout, stderr io.Writer, t *tally, elapsed time.Duration) int {
	code := ExitOK
	switch {
	case t.first != nil:
		var ce *harness.Counterexample
		t.first.trace, ce = rc.reportFailure(stdout, t.first)
		if ce != nil {
			rc.ci.counterexample(rc, t.first.seed, &t.first.t, ce, t.first.trace)
		}
		code = ExitViolation
	case errors.Is(t.stopped, errInterrupted):
		code = ExitInterrupted
	}
	s := rc.summaryOf(t, code)
	exhausted := t.stopped == nil && rc.plan.count() >= 0
	if err := rc.writeSummaries(s, exhausted, elapsed); err != nil {
		fmt.Fprintf(stderr, "%s run: %v\n", rc.cli.name(), err)
		return lostOutput(code)
	}
	return code
}

// lostOutput is the exit code of a run whose verdict was code and one of
// whose reports could not be written, although its path was checked
// before the run (a full disk, a directory removed meanwhile): a
// violation still says violation; any other verdict becomes "could not
// run", never "violation" nor a success that a missing report belies.
func lostOutput(code int) int {
	if code == ExitViolation {
		return code
	}
	return ExitCouldNotRun
}

// writeSummaries writes the verdict s as the run's flags ask: the
// -summary file, the -json summary, the -junit report.
// One that cannot be written does not keep the others from being
// written.
func (rc runConfig) writeSummaries(s summary, exhausted bool, elapsed time.Duration) error {
	var errs []error
	if rc.summary != "" {
		if err := writeSummary(rc.summary, withTraceFromSummary(s, rc.summary)); err != nil {
			errs = append(errs, fmt.Errorf("-summary: %w", err))
		}
	}
	if err := rc.ci.finish(rc, s, exhausted, elapsed); err != nil {
		errs = append(errs, fmt.Errorf("-junit: %w", err))
	}
	return errors.Join(errs...)
}

// errTimeUp is the cause of a run's end at its -time limit, errFailFast
// at its first failure under -failfast.
var (
	errTimeUp   = errors.New("time limit")
	errFailFast = errors.New("first failure (-failfast)")
)

// stopReason is why a run that ran done schedules ended before its plan
// did, or nil if it did not: the context's cause, or, with none, the
// -failfast stop (the only other way a run ends early).
func (rc runConfig) stopReason(ctx context.Context, done int) error {
	if done == rc.plan.count() {
		return nil
	}
	if cause := context.Cause(ctx); cause != nil {
		return cause
	}
	return errFailFast
}
