package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/checkers"
)

// Bounds are the limits of a systematic exploration (Explore). The fault
// budgets are the counts in Config.Faults (its Percent is ignored: every
// fault is an option wherever it is enabled, within its count).
//
// What "every schedule within the bounds" covers: every order of the
// clients' events (sends, replies and notifications received, wake-ups,
// reconnects, followers catching up), every placement of each fault
// within its count, and every moment at which time passes, so that a
// timer (an acquire deadline, a session expiry, the end of a pause or a
// sleep, a container reap, a lagging follower's catch-up) can fire
// between any two events, whatever the other clients are doing; all
// within Deviations (and Depth), where each fault, each early tick and
// each event run ahead of the default one costs one deviation. Time is
// coarsened to the moments something is due: a tick jumps to the next
// one, so an event happens at one of those moments, never at a tick
// between two of them (a timer an event sets runs from the last moment
// reached). A client that retries without waiting lets time pass with
// its requests (Config.SpinRequests), as real time does; a run that
// never ends is judged no-progress only when time had been let pass.
// The zero value (with Deviations set) is this model; NoEarlyTicks and
// Ticks narrow it.
type Bounds struct {
	// Deviations bounds the choices of one schedule that differ from the
	// default schedule (option 0: the lowest-numbered client's event, or
	// time passing when nothing else can happen or a client spins), as
	// CHESS bounds preemptions: every fault, every early tick, and every
	// event run ahead of a lower-numbered client's costs one; the
	// workload's yes/no questions are free. Most bugs need few. Negative:
	// no bound (then sleep sets prune too; with a bound they could cut
	// schedules whose only equivalent exceeds it).
	Deviations int
	// Depth bounds the choices of one schedule (steps with more than one
	// option, and the workload's questions); 0: no bound.
	Depth int
	// Ticks bounds the early ticks: ticks taken while some other event
	// was enabled (a slow network, a late timer), each a deviation too;
	// 0: no bound of their own when Deviations bounds them, and
	// 2 (defaultTicks) when it does not (unbounded, time could be made to
	// fire a timer at the worst moment forever). An early tick is
	// an option wherever something is due: it advances time to the next
	// moment something is (Config.Flat). Time passes freely when nothing
	// else can happen.
	Ticks int
	// NoEarlyTicks is the narrower model of searches before early ticks
	// were an option by default: time passes only when nothing else can
	// happen (or a client spins), so a deadline or a session expiry never
	// fires while another client is between two requests. It is smaller
	// and not exhaustive for timers.
	NoEarlyTicks bool
	// MaxStates stops the search after this many distinct states; 0: no
	// limit. A search stopped so is not exhaustive, and says so.
	MaxStates int
	// Budget stops the search after this much wall-clock time; 0: none.
	// It decides only how much is covered, which the result reports: a
	// counterexample found is found on every host.
	Budget time.Duration
	// NoDeepening runs one pass at the bound instead of iterative
	// deepening (passes at deviations 0, 1, ..., Deviations, or with no
	// deviation bound at depth 1, 2, ..., Depth), which makes the first
	// counterexample one with the fewest deviations (or choices) at the
	// cost of re-running the smaller passes.
	NoDeepening bool
	// NoReduction turns off state fingerprints and sleep sets: plain
	// enumeration of every schedule, to measure what they save.
	NoReduction bool
	// Shard and Shards split the schedules: this search covers the
	// subtrees below the first choices whose number is Shard modulo
	// Shards. The shards together cover what one search would.
	Shard, Shards int
	// Class, if set, is the violation class searched for: the search goes
	// on past runs that show only others.
	Class check.Class
	// Symmetry treats the clients as interchangeable: a state and its
	// mirror images (the same state with clients' parts exchanged: their
	// names in paths and data, their sessions) are one state, and the
	// default schedule runs the clients in an order that the state
	// decides (so that mirror states have mirror options at equal
	// costs), not by number. It is sound for programs that treat names
	// and session ids as opaque (compared only for equality), as a
	// workload's identical clients do, and leaves out one thing that
	// tells mirror states apart: the order in which sessions that expire
	// in the same tick are closed (by session id in the fake, unspecified
	// in ZooKeeper). It applies to 2 to 4 clients, and not with
	// NoReduction. Off by default: it is the user's declaration that the
	// clients are interchangeable, and it pays off only without a
	// deviation bound (2 clients x 1, no bound: half the states); under
	// one, its default schedule makes the bounded space a different one,
	// measured larger (lock 2x1, one fault of each kind, 2 deviations:
	// 381k states against 238k), and each state costs a hash per
	// permutation.
	Symmetry bool
	// Parallel is the number of workers, each on a part of this shard;
	// default 1. Each keeps its own fingerprints, so that the result is
	// the same on every run; the states of a part another worker also
	// reached are counted by both.
	Parallel int
}

// runConfig is cfg as a search within b runs every schedule: one choice
// among all enabled events a step (Config.Flat), early ticks within
// b.Ticks (none with b.NoEarlyTicks), every fault an option within its
// count (Faults.Percent unused), no PCT. A failure's decisions replay
// under it (Failure.Config; the search itself also drops the trace).
func (b Bounds) runConfig(cfg Config) Config {
	cfg.Flat, cfg.TickBudget, cfg.PCT = true, b.tickBudget(), false
	cfg.Faults.Percent = 0
	return cfg
}

// defaultTicks bounds the early ticks of a search without a deviation
// bound, if Bounds.Ticks does not.
const defaultTicks = 2

// tickBudget is Config.TickBudget for b: 0 none, negative no bound.
func (b Bounds) tickBudget() int {
	switch {
	case b.NoEarlyTicks:
		return 0
	case b.Ticks == 0 && b.Deviations >= 0:
		return -1
	case b.Ticks == 0:
		return defaultTicks
	}
	return b.Ticks
}

// symmetric reports whether a search of a scenario of this many clients
// uses symmetry.
func (b Bounds) symmetric(clients int) bool {
	return b.Symmetry && !b.NoReduction && clients >= 2 && clients <= maxSymmetric
}

func (b Bounds) withDefaults() Bounds {
	b.Shards = cmp.Or(b.Shards, 1)
	b.Parallel = cmp.Or(b.Parallel, 1)
	return b
}

// Exploration is what a systematic search covered and found.
type Exploration struct {
	Bounds    Bounds
	Schedules int // runs executed (each re-executes its prefix)
	States    int // distinct states of the last pass
	Visited   int // distinct states of every pass, added up
	Revisits  int // runs cut at a state already explored
	Slept     int // options skipped by sleep sets
	DepthCuts int // runs cut by the depth bound in the last pass
	BoundCuts int // options left out by the deviation bound in the last pass
	Passes    int // deepening passes run
	Depth     int // depth bound of the last pass (0: none)
	Deviation int // deviation bound of the last pass (-1: none)
	// Exhausted: every schedule within the bounds (faults, ticks,
	// deviations, depth) was covered. Complete: moreover no schedule was
	// cut by the deviation or depth bound, so every schedule within the
	// fault and tick bounds was.
	Exhausted bool
	Complete  bool
	// Symmetric: the search treated the clients as interchangeable (see
	// Bounds.Symmetry); its coverage is up to mirror images.
	Symmetric bool
	Elapsed   time.Duration
	// Done lists the deepening passes that ran to their end, in order:
	// each covered every schedule within its bounds.
	Done []PassResult
	// Failure is the first failing schedule found (with deepening, a
	// shortest one); nil if none.
	Failure *Failure
	// Exercised is what every run of every pass exercised (see Coverage).
	Exercised Coverage
}

// Failure is a failing schedule a search found: its decisions, shrunk
// (choices past the list are 0), and what it broke.
type Failure struct {
	Decisions []int
	// Config is the configuration its decisions replay under: the
	// search's own (see Config.Flat), traced as the search was asked.
	Config Config
	Class  check.Class
	// Invariant is the Judge's Invariant verdict, if that is what the
	// schedule broke: a run judged only at its end may not show it.
	Invariant *check.Violation
}

// Explore searches every schedule of sc within the bounds, systematically,
// and stops at the first that breaks a checker (or when ctx ends, which
// stops it like a budget). Every step is one choice among the enabled
// events (Config.Flat), time passing included wherever something is due,
// so that a timer can fire between any two events (see Bounds for what
// "every schedule" covers). A run is cut where it reaches a state already
// explored with at least as much budget left (state fingerprints: the
// ensemble, the messages in flight, virtual time and timers, the budgets
// used, and what each client's program has been told). Without a
// deviation bound, sleep sets also skip an option whose order against the
// ones explored before it only swaps independent events (of different
// clients, at most one touching the data, at most one changing what the
// judge sees, Judge.Visible; a tick is independent of nothing, so it is
// never skipped as commuting). The judge's invariant is checked after every
// step, so a state reached twice is judged on both paths; its verdict
// judges each run that ends.
func Explore(ctx context.Context, cfg Config, sc Scenario, b Bounds) (*Exploration, error) {
	if err := validateSearch(cfg, sc, b); err != nil {
		return nil, err
	}
	defer keepWorkers()()
	b = b.withDefaults()
	asked := cfg
	cfg = b.runConfig(cfg)
	cfg.NoTrace = true
	start := time.Now()
	// Parallel workers split this search's shard further: worker j of p
	// takes shard Shard+Shards*j of Shards*p, so that the machine-level
	// shards and the workers together still cover every schedule once.
	xs := make([]*explorer, b.Parallel)
	for j := range xs {
		wb := b
		wb.Shard, wb.Shards = b.Shard+b.Shards*j, b.Shards*b.Parallel
		xs[j] = &explorer{ctx: ctx, b: wb, cfg: cfg, sc: sc, start: start}
	}
	res := &Exploration{Bounds: b}
	for _, p := range b.passes() {
		errs := make([]error, len(xs))
		var wg sync.WaitGroup
		for j, x := range xs {
			wg.Go(func() {
				x.devs, x.depth = p.devs, p.depth
				errs[j] = x.pass()
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
		before := res.Schedules
		res.merge(p, xs)
		res.Symmetric = xs[0].sym != nil
		if res.Failure != nil || slices.ContainsFunc(xs, func(x *explorer) bool { return x.stopped }) {
			break
		}
		res.Done = append(res.Done, PassResult{Deviation: p.devs, Depth: p.depth, States: res.States,
			Schedules: res.Schedules - before, Elapsed: time.Since(start)})
		if res.DepthCuts == 0 && res.BoundCuts == 0 {
			res.Exhausted, res.Complete = true, true
			break
		}
		res.Exhausted = p == b.passes()[len(b.passes())-1]
	}
	if res.Failure != nil {
		res.Failure.Config = b.runConfig(asked)
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// PassResult is what one deepening pass covered, and when it was done.
type PassResult struct {
	Deviation, Depth int // the pass's bounds (-1, 0: none)
	States           int
	Schedules        int
	Elapsed          time.Duration // since the search began
}

// pass is one deepening pass's bounds.
type pass struct{ devs, depth int }

// passes are the deepening passes: on deviations if they are bounded,
// else on depth; one pass with NoDeepening.
func (b Bounds) passes() []pass {
	var ps []pass
	switch {
	case b.NoDeepening:
		ps = []pass{{max(b.Deviations, -1), b.Depth}}
	case b.Deviations >= 0:
		for k := 0; k <= b.Deviations; k++ {
			ps = append(ps, pass{k, b.Depth})
		}
	default:
		for d := 1; d <= b.Depth; d++ {
			ps = append(ps, pass{-1, d})
		}
	}
	return ps
}

// merge adds the workers' counts of pass p; the counterexample kept is
// the shortest, then the first in decision order, whichever worker found
// it, so that the result does not depend on the number of workers' timing.
func (r *Exploration) merge(p pass, xs []*explorer) {
	r.Passes++
	r.Depth, r.Deviation = p.depth, p.devs
	r.States, r.DepthCuts, r.BoundCuts = 0, 0, 0
	for _, x := range xs {
		r.Schedules += x.res.Schedules
		r.Revisits += x.res.Revisits
		r.Slept += x.res.Slept
		r.States += x.res.States
		r.Visited += x.res.States
		r.DepthCuts += x.res.DepthCuts
		r.BoundCuts += x.res.BoundCuts
		x.res.Schedules, x.res.Revisits, x.res.Slept = 0, 0, 0
		r.Exercised.Add(&x.res.Exercised)
		x.res.Exercised = Coverage{}
		if f := x.res.Failure; f != nil && (r.Failure == nil || shorter(f.Decisions, r.Failure.Decisions)) {
			r.Failure = f
		}
	}
}

func shorter(a, b []int) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return slices.Compare(a, b) < 0
}

// explorer is one depth-first search over decision sequences, re-running
// the scenario from the start for each (a run's goroutines cannot be
// copied), with the stack of choice points of the current schedule.
type explorer struct {
	ctx   context.Context // its end stops the search, like a budget
	sym   *symmetry       // nil: no symmetry
	b     Bounds
	cfg   Config
	sc    Scenario
	start time.Time
	res   Exploration

	depth   int // this pass's depth bound; 0: none
	devs    int // this pass's deviation bound; -1: none
	stack   []frame
	visited visitTable           // state -> its visit's depth<<16 | deviations used
	sleeps  map[uint64][2]uint64 // state -> asleep there, when sleep sets are on
	split   int                  // choices numbered below this depth decide the shard
	splitN  int                  // options numbered at that depth so far

	// the current run
	s       *Sim
	judge   Judge
	pos     int       // choices made in this run
	sleep   []sleeper // asleep in the current state
	lastEv  int       // frame of the event chosen for this step; -1: forced
	canon   int       // with symmetry: the current state's canonical permutation
	canonAt int       // the step after which canon was computed; -1: none
	before  stepMark
	fail    *check.Violation
	stopped bool // a budget ran out
}

// frame is one choice point of the current schedule.
type frame struct {
	n      int
	choice int
	real   int       // a step's choice as an index into the run's options
	event  bool      // a step (else a workload question)
	opts   []Event   // a step's options (with symmetry, in canonical order)
	sleep  []sleeper // asleep when the state was reached
	done   []sleeper // options explored before choice, with their footprints
	foot   footprint // what choice's event touched, in the latest run
	used   int       // deviations of the choices before this one
}

// cost is the deviations f's current choice adds.
func (f *frame) cost() int {
	if f.event && f.choice > 0 {
		return 1
	}
	return 0
}

// usedAt is the deviations of the choices before the one at index i.
func (x *explorer) usedAt(i int) int {
	if i == 0 {
		return 0
	}
	f := &x.stack[i-1]
	return f.used + f.cost()
}

// footprint is what an executed event touched, for deciding whether two
// events commute.
type footprint struct {
	client  int
	kind    evKind
	global  bool // time, followers, the reaper: depends on everything
	read    bool // read the ensemble's data (a request, a reconnect)
	write   bool // changed the data or a replica's position in the log
	visible bool // changed what the judge sees (Judge.Visible)
}

// independent reports whether a and b commute: running them in either
// order reaches the same state and the same critical-section history.
// What one client's event does to its own session (its watches, its
// connection) no other client can see, so only data conflicts count: a
// write against a read or a write.
func independent(a, b footprint) bool {
	return !a.global && !b.global && a.client != b.client &&
		!(a.write && (b.write || b.read)) && !(b.write && a.read) &&
		!(a.visible && b.visible) &&
		!(a.kind == b.kind && a.kind.isFault()) // they share a budget
}

type sleeper struct {
	ev Event
	fp footprint
}

// stepMark is what a step's footprint is measured against.
type stepMark struct {
	closes  int
	log     int64 // the sum of every replica's last applied zxid
	visible int
}

// readKinds are the events that read the ensemble's data.
var readKinds = [numKinds]bool{evSend: true, evLoseReply: true, evReconnect: true}

func isGlobal(k evKind) bool { return k == evTick || k == evCatchUp || k == evReap }

// pass is one depth-first search with the current depth bound.
func (x *explorer) pass() error {
	x.stack, x.sleeps = x.stack[:0], nil
	x.visited.reset()
	if x.devs < 0 && !x.b.NoReduction {
		x.sleeps = map[uint64][2]uint64{}
	}
	x.res.States, x.res.DepthCuts, x.res.BoundCuts, x.splitN = 0, 0, 0, 0
	x.split = 0
	if x.b.Shards > 1 {
		x.split = 3
		if x.depth > 0 {
			x.split = min(3, x.depth)
		}
	}
	for {
		failed, err := x.runOnce()
		if err != nil {
			return err
		}
		switch {
		case len(failed) == 0:
		case x.b.Class == "":
			x.failure(checkers.Worst(failed))
			return nil
		case slices.Contains(failed, x.b.Class):
			x.failure(x.b.Class)
			return nil
		}
		if x.budgetOut() {
			x.stopped = true
			return nil
		}
		if !x.backtrack() {
			return nil
		}
	}
}

func (x *explorer) budgetOut() bool {
	if x.b.MaxStates > 0 && x.res.States >= x.b.MaxStates {
		return true
	}
	// The clock and ctx are read every 64 runs: they decide only coverage.
	if x.res.Schedules%64 != 0 {
		return false
	}
	return x.ctx.Err() != nil || (x.b.Budget > 0 && time.Since(x.start) > x.b.Budget)
}

// runOnce runs the schedule the stack describes, extending it at its
// frontier, and returns the violation classes it shows.
func (x *explorer) runOnce() ([]check.Class, error) {
	x.pos, x.sleep, x.lastEv, x.fail, x.canonAt = 0, x.sleep[:0], -1, nil, -1
	s, err := newSim(x.cfg, x)
	if err != nil {
		return nil, err
	}
	programs, judge := x.sc.Start(s)
	x.s, x.judge = s, judge
	s.pickHook, s.after, s.hashing = x.pick, x.after, !x.b.NoReduction
	if x.b.symmetric(len(programs)) {
		if x.sym == nil {
			x.sym = newSymmetry(len(programs))
		}
		x.sym.reset(s)
		s.sym = x.sym
	}
	res := s.run(programs)
	x.res.Schedules++
	x.res.Exercised.Add(&res.Coverage)
	if x.pos != len(x.stack) {
		panic(fmt.Sprintf("sim: invariant: a replayed schedule made %d choices, not %d: a run is not deterministic", x.pos, len(x.stack)))
	}
	if x.fail != nil {
		return []check.Class{x.fail.Class}, nil
	}
	if !s.cut {
		return judge.Verdict(res), nil
	}
	return nil, nil
}

// Choose implements Chooser for the workload's questions: each answer is
// a choice point like a step.
func (x *explorer) Choose(n int, _ string) int {
	if x.pos < len(x.stack) {
		f := &x.stack[x.pos]
		x.pos++
		return f.choice
	}
	x.stack = append(x.stack, frame{n: n, used: x.usedAt(len(x.stack))})
	x.pos++
	return 0
}

// pick chooses a step among opts: the recorded choice while the schedule
// replays its prefix, else the first option not asleep (none: the state
// is covered, and the run ends).
func (x *explorer) pick(opts []Event) (int, bool) {
	x.mark()
	if len(opts) == 1 { // no choice point
		if x.pos == len(x.stack) && x.asleep(opts[0]) {
			x.res.Slept++
			return 0, false
		}
		x.lastEv = -1
		return 0, true
	}
	if x.pos < len(x.stack) {
		f := &x.stack[x.pos]
		if !f.event || f.n != len(opts) {
			panic(fmt.Sprintf("sim: invariant: a replayed step has %d options, not %d: a run is not deterministic", len(opts), f.n))
		}
		x.lastEv = x.pos
		x.pos++
		return f.index(opts), true
	}
	if x.depth > 0 && len(x.stack) >= x.depth {
		x.res.DepthCuts++
		return 0, false
	}
	f := x.reuse()
	f.n, f.choice, f.event, f.used = len(opts), -1, true, x.usedAt(len(x.stack))
	f.opts, f.sleep = append(f.opts, opts...), append(f.sleep, x.sleep...)
	if x.sym != nil {
		order(f.opts, x.sym.perms[x.canonical()], x.s.owes)
	}
	if !x.advance(&f, len(x.stack)) {
		return 0, false
	}
	x.stack = append(x.stack, f)
	x.lastEv = x.pos
	x.pos++
	return x.stack[len(x.stack)-1].index(opts), true
}

// reuse returns an empty frame for the next choice point, with the
// slices of the frame last popped from that depth to append to: a search
// pushes and pops a frame for nearly every state, and nothing keeps a
// popped frame's slices.
func (x *explorer) reuse() frame {
	if len(x.stack) == cap(x.stack) {
		return frame{}
	}
	old := x.stack[:len(x.stack)+1][len(x.stack)]
	return frame{opts: old.opts[:0], sleep: old.sleep[:0], done: old.done[:0]}
}

// index sets and returns the index of f's choice among opts, the run's
// options in their own order.
func (f *frame) index(opts []Event) int {
	f.real = f.choice
	if f.opts[f.choice] != opts[f.choice] {
		f.real = slices.Index(opts, f.opts[f.choice])
	}
	return f.real
}

// canonical is the current state's canonical permutation, computed now
// unless the state's visit did.
func (x *explorer) canonical() int {
	if x.canonAt != x.s.step-1 {
		_, x.canon = x.sym.canonical()
		x.canonAt = x.s.step - 1
	}
	return x.canon
}

// advance moves f, the choice point at index at, to its next option that
// is neither asleep nor another shard's; false if there is none.
func (x *explorer) advance(f *frame, at int) bool {
	for i := f.choice + 1; i < f.n; i++ {
		if i > 0 && x.devs >= 0 && f.used >= x.devs {
			x.res.BoundCuts++
			return false
		}
		if x.asleepIn(f.opts[i], f.sleep) {
			x.res.Slept++
			continue
		}
		if at == x.split-1 && x.b.Shards > 1 {
			n := x.splitN
			x.splitN++
			if n%x.b.Shards != x.b.Shard {
				// Another shard's: it counts as explored, with a
				// footprint that commutes with nothing.
				f.done = append(f.done, sleeper{f.opts[i], footprint{global: true}})
				continue
			}
		}
		f.choice = i
		return true
	}
	return false
}

func (x *explorer) asleep(ev Event) bool { return x.asleepIn(ev, x.sleep) }

func (x *explorer) asleepIn(ev Event, set []sleeper) bool {
	for _, z := range set {
		if z.ev == ev {
			return true
		}
	}
	return false
}

// mark records what the coming step's footprint is measured against.
func (x *explorer) mark() {
	x.before = stepMark{closes: x.s.closes, log: x.logMark(), visible: x.judge.Visible()}
}

func (x *explorer) logMark() int64 {
	m := x.s.m
	sum := m.Zxid()
	for i := 1; i <= x.cfg.Server.Followers; i++ {
		sum += m.ReplicaZxid(i)
	}
	return sum
}

// after runs after every step: it works out what the step touched, carries
// the sleep set over, checks exclusion, and cuts the run at a state
// already explored.
func (x *explorer) after(ev Event) bool {
	fp := footprint{client: ev.client, kind: ev.kind, global: isGlobal(ev.kind), read: readKinds[ev.kind],
		write:   x.s.closes != x.before.closes || x.logMark() != x.before.log,
		visible: x.judge.Visible() != x.before.visible}
	if x.b.NoReduction || x.devs >= 0 {
		x.sleep = x.sleep[:0]
		if x.lastEv >= 0 {
			x.stack[x.lastEv].foot = fp
		}
	} else {
		x.carrySleep(fp)
	}
	x.lastEv = -1
	if x.sym != nil {
		x.sym.register()
	}
	if v := x.judge.Invariant(x.s); v != nil {
		x.fail = v
		return false
	}
	if x.pos < len(x.stack) || x.b.NoReduction {
		return true // replaying a prefix: these states are known
	}
	if len(x.stack) < x.split {
		return true // above the shard split every shard walks the same tree
	}
	return x.visit()
}

// carrySleep computes the sleep set of the state the step reached: what
// slept before it, and what was explored before its option at its choice
// point, if it commutes with the step.
func (x *explorer) carrySleep(fp footprint) {
	var done []sleeper
	if x.lastEv >= 0 {
		f := &x.stack[x.lastEv]
		f.foot = fp
		done = f.done
	}
	kept := x.sleep[:0]
	for _, z := range x.sleep {
		if independent(z.fp, fp) {
			kept = append(kept, z)
		}
	}
	for _, z := range done {
		if independent(z.fp, fp) && !x.asleepIn(z.ev, kept) {
			kept = append(kept, z)
		}
	}
	x.sleep = kept
}

// visit looks the state up: a state explored before at no greater depth
// and with no more deviations used, with no option asleep then that is
// awake now, is cut. A visit is kept in 4 bytes (and 16 more for its
// sleep set when sleep sets are on): the visited set is most of a
// search's memory.
func (x *explorer) visit() bool {
	var key uint64
	var pos []int
	if x.sym != nil {
		key, x.canon = x.sym.canonical()
		x.canonAt, pos = x.s.step, x.sym.perms[x.canon]
	} else {
		key = x.s.fingerprint()
	}
	depth, used := min(len(x.stack), 0xffff), 0
	if x.devs >= 0 {
		used = min(x.usedAt(len(x.stack)), 0xffff)
	}
	here := uint32(depth<<16 | used)
	mask, fits := sleepMask(x.sleep, pos)
	old, seen := x.visited.get(key)
	if !seen {
		x.visited.put(key, here)
		x.remember(key, mask)
		x.res.States++
		return true
	}
	oldDepth, oldUsed := int(old>>16), int(old&0xffff)
	covered := (x.depth == 0 || oldDepth <= depth) && oldUsed <= used
	if x.sleeps != nil {
		was := x.sleeps[key]
		covered = covered && fits && was[0]&^mask[0] == 0 && was[1]&^mask[1] == 0
	}
	if covered {
		x.res.Revisits++
		return false
	}
	// Explored again from here: what this visit covers replaces what the
	// last one did (keeping the better of two visits in each respect
	// would claim more than either covered).
	x.visited.put(key, here)
	x.remember(key, mask)
	return true
}

func (x *explorer) remember(key uint64, mask [2]uint64) {
	if x.sleeps != nil {
		x.sleeps[key] = mask
	}
}

// sleepMask encodes a sleep set as bits kind*8+client, a client event's
// client as its position under pos (nil: its own); false if an event
// does not fit (then nothing can be cut on the strength of sleep sets).
func sleepMask(set []sleeper, pos []int) ([2]uint64, bool) {
	var m [2]uint64
	for _, z := range set {
		if z.ev.client >= 8 {
			return m, false
		}
		c := z.ev.client
		if pos != nil && !isGlobal(z.ev.kind) {
			c = pos[c]
		}
		bit := int(z.ev.kind)*8 + c
		m[bit/64] |= 1 << (bit % 64)
	}
	return m, true
}

// backtrack moves the stack to the next schedule: the deepest choice
// point with an option left takes it; false when none is left.
func (x *explorer) backtrack() bool {
	for len(x.stack) > 0 {
		f := &x.stack[len(x.stack)-1]
		if f.event {
			f.done = append(f.done, sleeper{f.opts[f.choice], f.foot})
			if x.advance(f, len(x.stack)-1) {
				return true
			}
		} else if f.choice+1 < f.n {
			f.choice++
			return true
		}
		x.stack = x.stack[:len(x.stack)-1]
	}
	return false
}

// failure records the failing schedule, shrunk: choices left at the
// default past the last deviation are implied (a decision list chooses 0
// past its end), and Shrink also tries to drop deviations the violation
// does not need.
func (x *explorer) failure(class check.Class) {
	d := make([]int, len(x.stack))
	for i, f := range x.stack {
		d[i] = f.choice
		if f.event {
			d[i] = f.real
		}
	}
	d = Shrink(d, func(d []int) bool { return slices.Contains(runJudged(x.cfg, Replay(d), x.sc), class) }, 400)
	x.res.Failure = &Failure{Decisions: d, Class: class, Invariant: x.fail}
}

// runJudged runs sc once with the choices of ch and returns the violation
// classes its judge finds: the invariant's after every step (the first
// breach ends the run) and the verdict's at the end.
func runJudged(cfg Config, ch Chooser, sc Scenario) []check.Class {
	s, err := newSim(cfg, ch)
	if err != nil {
		return nil
	}
	programs, judge := sc.Start(s)
	var broke *check.Violation
	s.after = func(Event) bool {
		broke = judge.Invariant(s)
		return broke == nil
	}
	res := s.run(programs)
	if broke != nil {
		return []check.Class{broke.Class}
	}
	return judge.Verdict(res)
}

// timeBound words the bound on time: when a timer may fire.
func (b Bounds) timeBound() string {
	switch {
	case b.NoEarlyTicks:
		return "no early ticks (timers fire only when nothing else can happen or a client spins)"
	case b.tickBudget() > 0:
		return fmt.Sprintf("timers fire between any two events, early ticks <= %d", b.tickBudget())
	}
	return "timers fire between any two events (an early tick: 1 deviation)"
}

// Coverage words what a search covered: its bounds, whether it exhausted
// them, and its counts.
func (r *Exploration) Coverage() string {
	b := r.Bounds
	var bounds []string
	if r.Deviation >= 0 {
		bounds = append(bounds, fmt.Sprintf("deviations <= %d", r.Deviation))
	}
	if r.Depth > 0 {
		bounds = append(bounds, fmt.Sprintf("depth <= %d", r.Depth))
	}
	bounds = append(bounds, b.timeBound())
	verdict := "NOT exhausted (stopped by a budget)"
	switch {
	case r.Complete:
		verdict = "exhausted: every schedule, no bound was reached"
	case r.Exhausted:
		verdict = "exhausted within the bounds"
	case r.Failure != nil:
		verdict = "stopped at the first counterexample"
	}
	reduction := "fingerprints"
	switch {
	case b.NoReduction:
		reduction = "none"
	case r.Deviation < 0:
		reduction = "fingerprints, sleep sets"
	}
	if r.Symmetric {
		reduction += ", symmetry"
	}
	rate := float64(r.Visited) / max(r.Elapsed.Seconds(), 1e-9)
	return fmt.Sprintf("%s; %s\n  schedules %d, distinct states %d (last pass), revisits cut %d, sleeping options %d, options over the bound %d\n"+
		"  passes %d (%d states in all), reductions: %s, %.0f states/s, %v",
		strings.Join(bounds, ", "), verdict, r.Schedules, r.States, r.Revisits, r.Slept, r.BoundCuts+r.DepthCuts,
		r.Passes, r.Visited, reduction, rate, r.Elapsed.Round(time.Millisecond))
}
