package simcli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/counterexample"
	"github.com/zksim/zksim/internal/nemesis"
	"github.com/zksim/zksim/internal/traceview"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"
)

// runConfig is one exploration, as the flags describe it.
type runConfig struct {
	cli       *CLI
	recipe    recipe.Lock      // a lock recipe's; zero for another Subject's
	workload  harness.Workload // the lock workload; for another Subject, its size only
	subject   harness.Subject  // what runs: workload, or one of CLI.Subjects resized
	faults    string           // as given, for the summary
	simFaults sim.Faults       // parsed once, for every schedule
	expire    int              // with servers: sessions to expire
	real      nemesis.Faults   // with servers: all the faults asked
	strategy  strategy
	followers int // -1: seed % 2
	overflow  fakezk.Overflow
	plan      plan
	budget    time.Duration // 0: none
	shrink    time.Duration // how long a counterexample is shrunk, at most
	parallel  int
	out       string
	summary   string        // file for the JSON summary; "" none
	asJSON    bool          // -json: JSON lines on stdout, the text report on stderr
	junit     string        // -junit: file for the JUnit XML report; "" none
	ci        *ciOutput     // the two above, once the run starts
	progress  time.Duration // period of the progress line off a terminal; 0 none
	trace     bool
	failfast  bool           // -failfast: stop at the first failing schedule
	verbosity int            // -q -1: the verdict alone; -v 1: a line per failing schedule too
	view      traceview.View // how traces are shown (-view)
	servers   []string       // real servers: no simulation
	ensemble  int            // -ensemble: servers to start for the real run; 0 none
	hold      time.Duration  // -hold: a real holder's work in its critical section
	outSet    bool           // -out given: a real run writes its HTML report even without a violation
	bounds    sim.Bounds     // -strategy exhaustive
}

// strategy is a way of choosing schedules. Both today are seeded:
// schedule k is the run of NewSeeded(seed k). A systematic strategy,
// which explores a frontier rather than seeds, is dispatched in
// runConfig.explore.
type strategy struct {
	name, title, doc string
	pct              bool
	systematic       bool // explores every schedule within bounds, not seeds
}

var strategies = []strategy{
	{name: "random", title: "random walk", doc: "uniform random walk over the enabled events"},
	{name: "pct", title: "PCT", doc: "probabilistic concurrency testing: client priorities with 2 change points", pct: true},
	{name: "exhaustive", title: "systematic search", systematic: true,
		doc: "every schedule within -deviations, -depth and -early-ticks (faults: the counts of each kind), fewest deviations first"},
}

// strategyNames is "random or pct".
func strategyNames() string {
	var names []string
	for _, s := range strategies {
		names = append(names, s.name)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// simOnly are the run flags that mean nothing on real servers: there is
// no schedule to choose, no simulated server to configure and no
// counterexample to shrink or save.
var simOnly = []string{"strategy", "schedules", "parallel", "shard", "summary", "trace", "view", "progress",
	"failfast", "v", "q", "shrink-time",
	"followers", "sequence-start", "overflow", "deadline-ticks", "deadline-percent",
	"deviations", "depth", "early-ticks", "max-states", "symmetry"}

// lockOnly are the run flags that mean nothing to a Subject other than a
// lock recipe's: it makes no read or timed acquisitions, writes no fenced
// resource, holds nothing for -hold to stretch (a real barrier's work
// inside is drawn from the seed), and, but for a barrier recipe's
// (realBarrier), has not been taken to real servers.
var lockOnly = []string{"read", "deadline-ticks", "deadline-percent", "unfenced", "sequence-start", "overflow", "hold", "servers", "ensemble"}

// singleRefused are the flags that mean nothing to a Subject whose
// clients each do one thing (a Shape without a Unit: the single barrier)
// as well: it has one round, and, for the single barrier, one client
// (the controller) unlike the others.
var singleRefused = []string{"acquisitions", "symmetry"}

// systematicOnly are the flags of the exhaustive strategy; seededOnly
// those that mean nothing to it (it has no seeds or schedule count).
var (
	systematicOnly = []string{"deviations", "depth", "early-ticks", "max-states", "symmetry"}
	seededOnly     = []string{"schedules", "trace", "summary"}
)

const runUsage = `usage: %[1]s run [flags]

Explore schedules of a lock or barrier recipe under faults and check
every one (a barrier's rounds are its -acquisitions).
Schedule k runs seed S+k (-seed S); -parallel workers share them, and the
verdicts, the first failure and its counterexample are those of a
sequential run. -shard I/N runs the schedules k with k mod N = I, for a CI
matrix or an indexed job; '%[1]s merge' joins the shards' -summary files.
With -time and no -schedules a run goes on until the time is up;
-failfast stops it at the first failing schedule.
Ctrl-C or SIGTERM stops a run, prints the summary so far and writes the
-json, -junit and -summary reports.
Exit codes: 0 no violation, 1 violation, 2 usage error (nothing ran; an
unwritable -summary, -junit or -out included), 3 could not run (or a
report could not be written after the run), 130 stopped by Ctrl-C or
SIGTERM before any violation.

`

type runFlags struct {
	recipe, faults, strategy, shard, servers, overflow, out, summary *string
	clients, acq, read, schedules, parallel, followers, deadline     *int
	ensemble                                                         *int
	deadlinePct, deviations, depth, earlyTicks, maxStates            *int
	sequenceStart                                                    *int64
	seed                                                             *uint64
	budget, progress, shrink, hold                                   *time.Duration
	trace, unfenced, symmetry, asJSON, failfast, verbose, quiet      *bool
	junit                                                            *string
}

func (c *CLI) runFlags(fs *flag.FlagSet) runFlags {
	return runFlags{
		recipe:        fs.String("recipe", "lock", "recipe to check: "+c.recipeNames()),
		clients:       fs.Int("clients", 5, "simulated clients (2-64); a barrier's default: 3, all members"),
		acq:           fs.Int("acquisitions", 3, "acquisitions per client (1-100); a double barrier's: rounds per client, default 2"),
		read:          fs.Int("read", 50, "percent of read acquisitions, for read/write recipes (0-100)"),
		faults:        fs.String("faults", "default", "fault mix: default, none, or kind=count,... and percent=P (see list); a mix that names no kind keeps the default kinds"),
		strategy:      fs.String("strategy", "random", "schedule strategy: "+strategyNames()),
		seed:          fs.Uint64("seed", 1, "first seed; schedule k uses seed+k"),
		schedules:     fs.Int("schedules", 10000, "schedules to explore over all shards (1-100000000); with -time and without this flag: no limit"),
		budget:        fs.Duration("time", 0, "stop after this long (e.g. 30s); without -schedules, run until then; 0: no time limit"),
		hold:          fs.Duration("hold", time.Millisecond, "real runs: how long a holder works inside its critical section, between its token and its write (1ms-10s); longer holds overlap more"),
		parallel:      fs.Int("parallel", runtime.GOMAXPROCS(0), "schedules explored at once (1-1024); default: GOMAXPROCS"),
		shard:         fs.String("shard", "0/1", "explore only shard I of N (0 <= I < N): the schedules k with k mod N = I"),
		summary:       fs.String("summary", "", "write a JSON summary of the run to this file (for merge)"),
		asJSON:        fs.Bool("json", false, "write JSON lines on stdout: each failing schedule as found, the counterexample, the summary (README: Using zksim in CI); the text report goes to stderr"),
		junit:         fs.String("junit", "", "write a JUnit XML report to this file: a testcase per violation class, or one passing testcase"),
		shrink:        fs.Duration("shrink-time", counterexample.DefaultShrinkTime, "how long the first failure's counterexample is made smaller, at most (e.g. 5s); it decides only how small, never whether a failure is reported"),
		progress:      fs.Duration("progress", 10*time.Second, "off a terminal, print a progress line to stderr this often; 0: never"),
		out:           fs.String("out", "zksim-failures", "directory for a failure's trace and HTML report"),
		trace:         fs.Bool("trace", false, "print every schedule's trace (for small runs)"),
		failfast:      fs.Bool("failfast", false, "stop at the first failing schedule (in schedule order, whatever -parallel), minimize and report it; the systematic search always does"),
		verbose:       fs.Bool("v", false, "verbose: also a line per failing schedule as found (seed, classes, first violation)"),
		quiet:         fs.Bool("q", false, "quiet: no header, progress lines or exercised table; the counts, the first failure and errors only"),
		followers:     fs.Int("followers", -1, "follower servers beside the leader (0-4), serving stale reads; -1: 0 for even seeds, 1 for odd"),
		sequenceStart: fs.Int64("sequence-start", 0, "create the lock directory with its sequence counter at this value (1-2147483647; near 2147483647 meets the overflow); 0: no"),
		overflow:      fs.String("overflow", "pin", "sequence counter past 2147483647: pin (ZooKeeper 3.6+) or wrap (3.5 and before)"),
		deadline:      fs.Int("deadline-ticks", 12, "acquire deadline in ticks of virtual time; 0: no deadlines"),
		deadlinePct:   fs.Int("deadline-percent", 50, "percent of acquisitions with a deadline (0-100); the others wait as long as it takes"),
		unfenced:      fs.Bool("unfenced", false, "write the resource with a plain set even when the lock can fence the write"),
		servers:       fs.String("servers", "", "run on real ZooKeeper servers host:port,... instead (faults: the client-side kinds and expire=N; no simulation-only flags)"),
		ensemble:      fs.Int("ensemble", 0, "start N real ZooKeeper servers (1: standalone; 1-9) from the installed ZooKeeper on free loopback ports, run on them as -servers does, and stop them at the end whatever happens"),
		deviations:    fs.Int("deviations", 2, "exhaustive: choices that differ from the default schedule (a fault, an early tick, a client run ahead of a lower-numbered one), at most; -1: no bound"),
		depth:         fs.Int("depth", 0, "exhaustive: choices per schedule, at most; 0: no bound"),
		earlyTicks:    fs.Int("early-ticks", -1, "exhaustive: early ticks (time passing while other events could happen, so that a timer fires while a client is between two requests), at most, each also a deviation; -1: no bound of their own under a -deviations bound, 2 without one; 0: none (timers fire only when nothing else can happen: not exhaustive for timers)"),
		symmetry:      fs.Bool("symmetry", false, "exhaustive: treat the clients as interchangeable (2-4 clients): a state and its mirror images are one, and the default schedule runs clients in an order the state decides; pays off with -deviations -1"),
		maxStates:     fs.Int("max-states", 100000000, "exhaustive: stop after this many distinct states in a pass, about 50 bytes of memory each (the result then says it is not exhausted); 0: no limit"),
	}
}

func (c *CLI) parseRun(args []string, stderr io.Writer) (runConfig, int) {
	fs := NewFlags("run", fmt.Sprintf(runUsage, c.name()), stderr)
	f := c.runFlags(fs)
	view := viewFlag(fs)
	if code := c.parseFlags(fs, args); code >= 0 {
		return runConfig{}, code
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	rc, err := c.newRunConfig(f, set)
	if err == nil {
		rc.view, err = parseView(*view)
	}
	if fs.NArg() > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err != nil {
		return runConfig{}, c.usageError(fs, "%v", err)
	}
	return rc, -1
}

// newRunConfig checks the flags' values and makes the run they describe.
func (c *CLI) newRunConfig(f runFlags, set map[string]bool) (runConfig, error) {
	r, ok := c.recipe(*f.recipe)
	other, isOther := c.other(*f.recipe)
	if !ok && !isOther {
		return runConfig{}, fmt.Errorf("unknown recipe %q (known: %s)", *f.recipe, c.recipeNames())
	}
	if *f.verbose && *f.quiet {
		return runConfig{}, errors.New("-v and -q: choose one")
	}
	rc := runConfig{cli: c, recipe: r, faults: *f.faults, budget: *f.budget, shrink: *f.shrink, parallel: *f.parallel, out: *f.out,
		failfast: *f.failfast, verbosity: verbosity(*f.verbose, *f.quiet),
		summary: *f.summary, asJSON: *f.asJSON, junit: *f.junit, progress: *f.progress, trace: *f.trace, followers: *f.followers,
		workload: harness.Workload{Clients: *f.clients, Acquisitions: *f.acq, ReadPercent: *f.read,
			TimeoutTicks: *f.deadline, TimeoutPercent: *f.deadlinePct, Unfenced: *f.unfenced, SequenceStart: int32(*f.sequenceStart)}}
	if *f.deadlinePct == 0 { // the library reads a share of 0 as 100
		rc.workload.TimeoutTicks = 0
	}
	if err := checkWorkload(f); err != nil {
		return runConfig{}, err
	}
	rc.subject = harness.Lock(rc.recipe, rc.workload)
	if isOther {
		if err := rc.otherSize(other, set); err != nil {
			return runConfig{}, err
		}
	}
	if *f.servers != "" || set["ensemble"] {
		if isOther { // a barrier recipe's (otherSize refuses the others)
			rc.subject = other.Resize(harness.Shape{Clients: rc.workload.Clients, Each: rc.workload.Acquisitions, Unit: other.Shape().Unit})
		}
		return rc, rc.realConfig(f, set)
	}
	if set["hold"] {
		return rc, errors.New("-hold: for real runs only (-servers or -ensemble); a simulated holder works for one tick of virtual time")
	}
	err := rc.simConfig(f, set)
	rc.subject = harness.Lock(rc.recipe, rc.workload)
	if isOther {
		rc.subject = other.Resize(harness.Shape{Clients: rc.workload.Clients, Each: rc.workload.Acquisitions, Unit: other.Shape().Unit})
	}
	if err == nil {
		err = rc.validate()
	}
	if err == nil {
		err = rc.checkOutputs()
	}
	return rc, err
}

// verbosity is -v's and -q's level: 1, -1, or 0 for neither.
func verbosity(verbose, quiet bool) int {
	switch {
	case verbose:
		return 1
	case quiet:
		return -1
	}
	return 0
}

// validate refuses, before the run starts, what the library would refuse
// at its first schedule (harness.Validate): a flag whose own check above
// lets a value through still ends as a usage error, not as the run's
// error or a panic.
func (rc *runConfig) validate() error {
	if rc.strategy.systematic && rc.bounds.Symmetry && (rc.workload.Clients < 2 || rc.workload.Clients > 4) {
		return fmt.Errorf("-symmetry treats 2 to 4 clients as interchangeable, got -clients %d", rc.workload.Clients)
	}
	return harness.Validate(rc.config(rc.plan.seed, false), rc.subject)
}

// otherSize refuses the flags a Subject other than a lock recipe's has no
// use for, and sizes it where the flags leave it: its own Shape (the
// barrier workload's default: 3 clients x 2 rounds).
func (rc *runConfig) otherSize(w harness.Subject, set map[string]bool) error {
	refused := lockOnly
	if isBarrier(w) { // a barrier runs on real servers too (realBarrier)
		refused = slices.DeleteFunc(slices.Clone(refused), func(f string) bool { return f == "servers" || f == "ensemble" })
	}
	if w.Shape().Unit == "" {
		refused = append(slices.Clone(refused), singleRefused...)
	}
	if err := refuse(refused, set, "not with "+recipeWords(w)); err != nil {
		return err
	}
	if !set["clients"] {
		rc.workload.Clients = w.Shape().Clients
	}
	if !set["acquisitions"] {
		rc.workload.Acquisitions = w.Shape().Each
	}
	return nil
}

// recipeWords names a Subject: "the barrier recipe barrier", or "recipe
// NAME" when its Spec names no kind.
func recipeWords(w harness.Subject) string {
	if k := kindOf(w); k != "" {
		return "the " + k + " recipe " + w.Name()
	}
	return "recipe " + w.Name()
}

// refuse says which of the flags named were set, as an error: "-a, -b:
// why"; nil if none was.
func refuse(names []string, set map[string]bool, why string) error {
	var refused []string
	for _, name := range names {
		if set[name] {
			refused = append(refused, "-"+name)
		}
	}
	if len(refused) > 0 {
		return fmt.Errorf("%s: %s", strings.Join(refused, ", "), why)
	}
	return nil
}

func checkWorkload(f runFlags) error {
	switch {
	case *f.clients < 2 || *f.clients > 64:
		return fmt.Errorf("-clients must be between 2 and 64, got %d", *f.clients)
	case *f.acq < 1 || *f.acq > 100:
		return fmt.Errorf("-acquisitions must be between 1 and 100, got %d", *f.acq)
	case *f.read < 0 || *f.read > 100:
		return fmt.Errorf("-read must be between 0 and 100, got %d", *f.read)
	case *f.budget < 0:
		return fmt.Errorf("-time must not be negative, got %v", *f.budget)
	case *f.shrink <= 0:
		return fmt.Errorf("-shrink-time must be positive, got %v", *f.shrink)
	case *f.out == "":
		return errors.New("-out must name a directory (for a failure's trace and report)")
	}
	return nil
}

// checkRead refuses -read for a recipe that makes no read acquisitions:
// the share would be silently ignored, and the run would not be the
// read/write run its command line suggests. (Another Subject's refusal is
// otherSize's.)
func (rc *runConfig) checkRead(set map[string]bool) error {
	if set["read"] && rc.recipe.AcquireRead == nil && rc.recipe.Name != "" {
		return fmt.Errorf("-read: %s makes no read acquisitions (only read/write recipes do)", rc.recipe.Name)
	}
	return nil
}

// realConfig refuses what real servers cannot do.
func (rc *runConfig) realConfig(f runFlags, set map[string]bool) error {
	if err := rc.ensembleConfig(f, set); err != nil {
		return err
	}
	if err := refuse(simOnly, set, "for simulated runs only, not with -"+rc.realFlag()); err != nil {
		return err
	}
	if *f.hold < time.Millisecond || *f.hold > 10*time.Second {
		return fmt.Errorf("-hold must be between 1ms and 10s, got %v", *f.hold)
	}
	rc.hold = *f.hold
	real, err := parseRealFaults(*f.faults)
	rc.real, rc.expire = real, real.Count(nemesis.Expire)
	rc.plan = plan{seed: *f.seed, shards: 1}
	rc.outSet = set["out"]
	if errors.Is(err, errEmptyFaults) {
		return err
	} else if err != nil {
		return fmt.Errorf("-faults: %v", err)
	}
	if err := rc.checkRead(set); err != nil {
		return err
	}
	return errors.Join(checkFileOutput("junit", rc.junit), checkDirOutput("out", rc.out))
}

// simConfig checks the simulation's flags.
func (rc *runConfig) simConfig(f runFlags, set map[string]bool) error {
	var err error
	if rc.simFaults, err = parseFaults(*f.faults); errors.Is(err, errEmptyFaults) {
		return err
	} else if err != nil {
		return fmt.Errorf("-faults: %v", err)
	}
	if err := rc.checkRead(set); err != nil {
		return err
	}
	i := slices.IndexFunc(strategies, func(s strategy) bool { return s.name == *f.strategy })
	if i < 0 {
		return fmt.Errorf("-strategy must be %s, got %q", strategyNames(), *f.strategy)
	}
	rc.strategy = strategies[i]
	if err := rc.strategyFlags(f, set); err != nil {
		return err
	}
	if rc.overflow, err = parseOverflow(*f.overflow); err != nil {
		return err
	}
	if rc.plan, err = newPlan(*f.seed, *f.schedules, *f.shard, set["time"] && !set["schedules"] && *f.budget > 0); err != nil {
		return err
	}
	switch {
	case *f.parallel < 1 || *f.parallel > 1024:
		return fmt.Errorf("-parallel must be between 1 and 1024, got %d", *f.parallel)
	case *f.progress < 0:
		return fmt.Errorf("-progress must not be negative, got %v", *f.progress)
	case *f.followers < -1 || *f.followers > 4:
		return fmt.Errorf("-followers must be between 0 and 4 (or -1), got %d", *f.followers)
	case *f.sequenceStart < 0 || *f.sequenceStart > math.MaxInt32:
		return fmt.Errorf("-sequence-start must be between 0 and 2147483647, got %d", *f.sequenceStart)
	case *f.deadline < 0 || *f.deadline > math.MaxInt32:
		return fmt.Errorf("-deadline-ticks must be between 0 and %d, got %d", math.MaxInt32, *f.deadline)
	case *f.deadlinePct < 0 || *f.deadlinePct > 100:
		return fmt.Errorf("-deadline-percent must be between 0 and 100, got %d", *f.deadlinePct)
	}
	return nil
}

// strategyFlags refuses the flags the strategy has no use for, and sets
// up the exhaustive strategy: its bounds, and its defaults where the
// flags leave them (2 clients x 1 acquisition, one fault of each kind,
// no follower).
func (rc *runConfig) strategyFlags(f runFlags, set map[string]bool) error {
	misplaced := seededOnly
	if !rc.strategy.systematic {
		misplaced = systematicOnly
	}
	if err := refuse(misplaced, set, "not with -strategy "+rc.strategy.name); err != nil {
		return err
	}
	if !rc.strategy.systematic {
		return nil
	}
	if !set["clients"] {
		rc.workload.Clients = 2
	}
	if !set["acquisitions"] {
		rc.workload.Acquisitions = 1
	}
	if !set["faults"] {
		rc.faults, rc.simFaults = "one of each kind", oneOfEach
	}
	if rc.followers < 0 {
		rc.followers = 0
	}
	rc.bounds = sim.Bounds{Deviations: *f.deviations, Depth: *f.depth, Ticks: max(0, *f.earlyTicks), NoEarlyTicks: *f.earlyTicks == 0,
		MaxStates: *f.maxStates, Budget: *f.budget, Parallel: *f.parallel, Symmetry: *f.symmetry}
	switch {
	case *f.deviations < -1:
		return fmt.Errorf("-deviations must be -1 (no bound) or more, got %d", *f.deviations)
	case *f.depth < 0 || *f.depth > math.MaxInt32:
		return fmt.Errorf("-depth must be between 0 and %d, got %d", math.MaxInt32, *f.depth)
	case *f.earlyTicks < -1 || *f.earlyTicks > math.MaxInt32:
		return fmt.Errorf("-early-ticks must be -1 (no bound of their own) or between 0 and %d, got %d", math.MaxInt32, *f.earlyTicks)
	case *f.maxStates < 0:
		return fmt.Errorf("-max-states must not be negative, got %d", *f.maxStates)
	case *f.deviations == -1 && *f.depth == 0:
		return errors.New("-deviations -1 (no bound) needs a -depth bound: deepening passes go by depth then")
	}
	return rc.bounds.Validate()
}

func parseOverflow(s string) (fakezk.Overflow, error) {
	for _, o := range []fakezk.Overflow{fakezk.OverflowPin, fakezk.OverflowWrap} {
		if o.String() == s {
			return o, nil
		}
	}
	return 0, fmt.Errorf("-overflow must be pin or wrap, got %q", s)
}

// parseShard reads "I/N".
func parseShard(s string) (shard, shards int, err error) {
	a, b, ok := strings.Cut(s, "/")
	shard, err1 := strconv.Atoi(a)
	shards, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || shards < 1 || shard < 0 || shard >= shards {
		return 0, 0, fmt.Errorf("-shard must be I/N with 0 <= I < N, got %q", s)
	}
	return shard, shards, nil
}

// config is the simulation of the schedule of seed.
func (rc runConfig) config(seed uint64, traced bool) sim.Config {
	followers := rc.followers
	if followers < 0 {
		followers = int(seed % 2)
	}
	return sim.Config{PCT: rc.strategy.pct, Faults: rc.simFaults, NoTrace: !traced, MaxSteps: rc.stepBound(),
		Server: fakezk.Config{Followers: followers, Overflow: rc.overflow}}
}

// stepsPerRound bounds, generously, the steps one client's acquisition
// (or barrier round) takes: measured about 20 for the lock under the
// default faults, more for a semaphore's or a read/write lock's queue.
const stepsPerRound = 100

// defaultMaxSteps is sim.Config's default step bound.
const defaultMaxSteps = 20000

// stepBound is the run's step bound: the default (0), unless the
// workload may need more. At 64 clients x 20 acquisitions the default
// bound ended every run of the good rwlock and semaphore/3 unfinished,
// a false no-progress verdict; a workload the flags allow must fit.
func (rc runConfig) stepBound() int {
	need := rc.workload.Clients * rc.workload.Acquisitions * stepsPerRound
	if need <= defaultMaxSteps {
		return 0
	}
	return min(need, sim.MaxSteps)
}

// runRun explores schedules, reports, and on a violation saves the
// minimized counterexample.
func (c *CLI) runRun(args []string, stdout, stderr io.Writer) int {
	rc, code := c.parseRun(args, stderr)
	if code >= 0 {
		return code
	}
	ctx, stop := interruptible()
	defer stop()
	if os.Getenv("GOGC") == "" && !rc.strategy.systematic {
		// A simulation's live heap is small and it allocates fast: at
		// the default GOGC the collector runs dozens of times a second
		// per worker. Measured on 2 cores: 20-40% more schedules per
		// second at 400, for a few more megabytes of heap. (Not for the
		// systematic search, whose visited set is a large live heap.)
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	if rc.servers != nil || rc.ensemble > 0 {
		return rc.runReal(ctx, stdout, stderr)
	}
	rc.ci = newCIOutput(stdout, rc.asJSON, rc.junit)
	text := stdout
	if rc.asJSON {
		text = stderr
	}
	if rc.strategy.systematic {
		return rc.exhaust(ctx, text, stderr)
	}
	return rc.explore(ctx, text, stderr)
}
