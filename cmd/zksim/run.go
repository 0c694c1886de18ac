package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/lock/zoo"
	"github.com/zksim/zksim/rwlock"
	"github.com/zksim/zksim/sim"
)

// recipes are the recipes zksim can run, by name, with a line each.
func recipes() map[string]lock.Recipe {
	m := map[string]lock.Recipe{"lock": lock.MutexRecipe(), "rwlock": rwlock.Recipe()}
	for _, r := range zoo.All() {
		m[r.Name] = r
	}
	return m
}

func recipeNames() []string {
	var names []string
	for n := range recipes() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// runConfig is one exploration, as the flags describe it.
type runConfig struct {
	recipe    lock.Recipe
	workload  sim.Workload
	faults    string     // as given, for the summary
	simFaults sim.Faults // parsed once, for every schedule
	expire    int        // with servers: sessions to expire
	pct       bool
	seed      uint64
	schedules int
	budget    time.Duration
	out       string
	trace     bool
	servers   []string // real servers: no simulation
}

func parseRun(args []string, stderr io.Writer) (runConfig, int) {
	fs := newFlags("run", "usage: zksim run [flags]\n\nExplore schedules of a lock recipe under faults and check every one.\n\n", stderr)
	recipe := fs.String("recipe", "lock", "recipe to check: "+strings.Join(recipeNames(), ", "))
	clients := fs.Int("clients", 5, "simulated clients (2-64)")
	acq := fs.Int("acquisitions", 3, "acquisitions per client (1-100)")
	read := fs.Int("read", 50, "percent of read acquisitions, for read/write recipes (0-100)")
	faults := fs.String("faults", "default", "fault mix: default, none, or kind=count,... and percent=P (see zksim list)")
	strategy := fs.String("strategy", "random", "schedule strategy: random or pct")
	seed := fs.Uint64("seed", 1, "first seed; schedule i uses seed+i")
	schedules := fs.Int("schedules", 10000, "schedules to explore (1-100000000)")
	budget := fs.Duration("time", 0, "stop after this long instead (e.g. 30s); 0: no time budget")
	out := fs.String("out", "zksim-failures", "directory for a failure's trace and timeline")
	trace := fs.Bool("trace", false, "print every schedule's trace (for small runs)")
	servers := fs.String("servers", "", "run on real ZooKeeper servers host:port,... instead (faults: none or expire=N)")
	if code := parseFlags(fs, args); code >= 0 {
		return runConfig{}, code
	}
	bad := func(format string, a ...any) (runConfig, int) { return runConfig{}, usageError(fs, format, a...) }
	r, ok := recipes()[*recipe]
	var (
		simFaults sim.Faults
		expire    int
		ferr      error
	)
	if *servers != "" {
		expire, ferr = parseRealFaults(*faults)
	} else {
		simFaults, ferr = parseFaults(*faults)
	}
	switch {
	case fs.NArg() > 0:
		return bad("unexpected argument %q", fs.Arg(0))
	case !ok:
		return bad("unknown recipe %q (known: %s)", *recipe, strings.Join(recipeNames(), ", "))
	case *clients < 2 || *clients > 64:
		return bad("-clients must be between 2 and 64, got %d", *clients)
	case *acq < 1 || *acq > 100:
		return bad("-acquisitions must be between 1 and 100, got %d", *acq)
	case *read < 0 || *read > 100:
		return bad("-read must be between 0 and 100, got %d", *read)
	case ferr != nil:
		return bad("-faults: %v", ferr)
	case *strategy != "random" && *strategy != "pct":
		return bad("-strategy must be random or pct, got %q", *strategy)
	case *schedules < 1 || *schedules > 100000000:
		return bad("-schedules must be between 1 and 100000000, got %d", *schedules)
	case *budget < 0:
		return bad("-time must not be negative, got %v", *budget)
	}
	var serverList []string
	if *servers != "" {
		serverList = strings.Split(*servers, ",")
	}
	return runConfig{
		recipe: r, faults: *faults, simFaults: simFaults, expire: expire, pct: *strategy == "pct", seed: *seed, schedules: *schedules,
		budget: *budget, out: *out, trace: *trace, servers: serverList,
		workload: sim.Workload{Recipe: r, Clients: *clients, Acquisitions: *acq, ReadPercent: *read,
			TimeoutTicks: 12, TimeoutPercent: 50},
	}, -1
}

func (rc runConfig) config(seed uint64, traced bool) sim.Config {
	return sim.Config{PCT: rc.pct, Faults: rc.simFaults, NoTrace: !traced,
		Server: fakezk.Config{Seed: seed, Followers: int(seed % 2)}}
}

// tally is what a run saw.
type tally struct {
	schedules int
	failing   int // schedules with at least one violation
	byClass   map[string]int
	wakeups   int
	changes   int
	maxWoken  int
	first     *failed
}

type failed struct {
	seed    uint64
	classes []string
}

// runRun explores schedules, reports, and on a violation saves the
// minimized counterexample.
func runRun(args []string, stdout, stderr io.Writer) int {
	rc, code := parseRun(args, stderr)
	if code >= 0 {
		return code
	}
	if rc.servers != nil {
		return (&realRun{rc: rc}).run(stdout, stderr)
	}
	t := tally{byClass: map[string]int{}}
	start := time.Now()
	progress := newProgress(stderr)
	for i := range rc.schedules {
		if rc.budget > 0 && time.Since(start) > rc.budget {
			break
		}
		seed := rc.seed + uint64(i)
		rep, err := sim.RunWorkload(rc.config(seed, rc.trace), sim.NewSeeded(seed), rc.workload)
		if err != nil {
			fmt.Fprintf(stderr, "zksim run: %v\n", err)
			return 1
		}
		if rc.trace {
			fmt.Fprint(stdout, sim.TraceString(rep.Result.Trace))
		}
		t.add(rep, seed)
		progress.update(t, i+1, rc.schedules, rc.budget, start)
	}
	progress.done()
	elapsed := time.Since(start)
	rc.summary(stdout, t, elapsed)
	if t.first == nil {
		return 0
	}
	rc.reportFailure(stdout, t.first)
	return 1
}

func (t *tally) add(rep *sim.Report, seed uint64) {
	t.schedules++
	classes := rep.Classes()
	for _, c := range classes {
		t.byClass[c]++
	}
	for _, n := range rep.Herd {
		t.wakeups += n
		t.changes++
		t.maxWoken = max(t.maxWoken, n)
	}
	if len(classes) > 0 {
		t.failing++
		if t.first == nil {
			sort.SliceStable(classes, func(i, j int) bool { return severity(classes[i]) < severity(classes[j]) })
			t.first = &failed{seed: seed, classes: classes}
		}
	}
}

func (rc runConfig) summary(w io.Writer, t tally, elapsed time.Duration) {
	strategy := "random walk"
	if rc.pct {
		strategy = "PCT"
	}
	wl := rc.workload
	fmt.Fprintf(w, "zksim run: %s, %d clients x %d acquisitions, faults %s, %s, seeds %d..%d\n",
		rc.recipe.Name, wl.Clients, wl.Acquisitions, rc.faults, strategy, rc.seed, rc.seed+uint64(t.schedules)-1)
	model := "mutual exclusion"
	if rc.recipe.AcquireRead != nil {
		model = "reader/writer exclusion"
	}
	fmt.Fprintf(w, "checked: %s (porcupine), herd, fencing, orphans, deadlock, progress\n\n", model)
	rate := float64(t.schedules) / max(elapsed.Seconds(), 1e-9)
	fmt.Fprintf(w, "  %-22s %d\n  %-22s %.0f/s (%v)\n", "schedules", t.schedules, "rate", rate, elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "  %-22s %d schedules\n", "violations", t.failing)
	classes := make([]string, 0, len(t.byClass))
	for c := range t.byClass {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, c := range classes {
		fmt.Fprintf(w, "    %-20s %d\n", c, t.byClass[c])
	}
	herd := 0.0
	if t.changes > 0 {
		herd = float64(t.wakeups) / float64(t.changes)
	}
	fmt.Fprintf(w, "  %-22s %.2f clients woken per change (max %d)\n", "herd", herd, t.maxWoken)
}

// severity orders violation classes, worst first: the first failure is
// reported by its worst class.
func severity(class string) int {
	order := []string{"mutual-exclusion", "reader-writer-exclusion", "fencing", "deadlock",
		"no-progress", "orphan", "client-error", "invariant", "herd"}
	if i := slices.Index(order, class); i >= 0 {
		return i
	}
	return len(order)
}

// reportFailure finds the smallest workload and schedule that show the
// first failure's class, saves it, and says how to replay it.
func (rc runConfig) reportFailure(w io.Writer, f *failed) {
	class := f.classes[0]
	ce, ok := sim.Minimize(rc.workload, func(seed uint64) sim.Config { return rc.config(seed, true) }, class, 60)
	if !ok { // no smaller run shows it: shrink the schedule that did
		ce, ok = sim.ShrinkSeed(rc.workload, rc.config(f.seed, true), f.seed, class)
	}
	if !ok {
		// Runs are deterministic: this is a bug in the simulator.
		fmt.Fprintf(w, "\nfirst failure: seed %d, %s; run again, it showed no %s: a nondeterministic run, please report it\n",
			f.seed, strings.Join(f.classes, ", "), class)
		return
	}
	fmt.Fprintf(w, "\nfirst failure: seed %d, %s. Minimal counterexample: %d clients x %d acquisitions, %d trace lines:\n",
		f.seed, strings.Join(f.classes, ", "), ce.Workload.Clients, ce.Workload.Acquisitions, len(ce.Report.Result.Trace))
	sim.WriteFailure(w, rc.out, rc.recipe.Name+"-"+class, ce)
}

// progress writes a status line to a terminal, and nothing otherwise.
type progress struct {
	w    io.Writer
	on   bool
	last time.Time
}

func newProgress(w io.Writer) *progress {
	on := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			on = true
		}
	}
	return &progress{w: w, on: on}
}

func (p *progress) update(t tally, done, total int, budget time.Duration, start time.Time) {
	if !p.on || time.Since(p.last) < 200*time.Millisecond {
		return
	}
	p.last = time.Now()
	elapsed := time.Since(start)
	rate := float64(done) / max(elapsed.Seconds(), 1e-9)
	eta := time.Duration(float64(total-done)/rate) * time.Second
	if budget > 0 {
		eta = min(eta, budget-elapsed)
	}
	fmt.Fprintf(p.w, "\r  %d/%d schedules  %.0f/s  violations %d  ETA %v   ", done, total, rate, t.failing, eta.Round(time.Second))
}

func (p *progress) done() {
	if p.on && !p.last.IsZero() {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
