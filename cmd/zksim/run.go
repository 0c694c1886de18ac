package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/lock/zoo"
	"github.com/zksim/zksim/rwlock"
	"github.com/zksim/zksim/sim"
)

// recipes are the recipes zksim can run, by name.
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

// runRun explores schedules of the standard workload with seeded choices.
func runRun(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	recipe := fs.String("recipe", "lock", "recipe to check: "+strings.Join(recipeNames(), ", "))
	seed := fs.Uint64("seed", 1, "first seed")
	schedules := fs.Int("schedules", 200, "schedules to explore (1-1000000)")
	clients := fs.Int("clients", 5, "clients (1-64)")
	acq := fs.Int("acquisitions", 3, "acquisitions per client (1-1000)")
	printTrace := fs.Bool("trace", false, "print the trace of every schedule")
	pct := fs.Bool("pct", false, "use the PCT strategy instead of a random walk")
	noFaults := fs.Bool("no-faults", false, "inject no faults")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	r, ok := recipes()[*recipe]
	switch {
	case !ok:
		fmt.Fprintf(stderr, "zksim run: unknown recipe %q (known: %s)\n", *recipe, strings.Join(recipeNames(), ", "))
		return 2
	case *schedules < 1 || *schedules > 1000000:
		fmt.Fprintf(stderr, "zksim run: -schedules must be between 1 and 1000000, got %d\n", *schedules)
		return 2
	case *clients < 1 || *clients > 64 || *acq < 1 || *acq > 1000:
		fmt.Fprintf(stderr, "zksim run: -clients must be 1-64 and -acquisitions 1-1000\n")
		return 2
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "zksim run: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	w := sim.Workload{Recipe: r, Clients: *clients, Acquisitions: *acq, ReadPercent: 50, TimeoutTicks: 12, TimeoutPercent: 50}
	failed := 0
	for i := range *schedules {
		s := *seed + uint64(i)
		cfg := sim.Config{PCT: *pct, Server: defaultServer(s), NoTrace: !*printTrace}
		if !*noFaults {
			cfg.Faults = defaultFaults
		}
		rep, err := sim.RunWorkload(cfg, sim.NewSeeded(s), w)
		if err != nil {
			fmt.Fprintf(stderr, "zksim run: %v\n", err)
			return 1
		}
		if *printTrace {
			fmt.Fprint(stdout, sim.TraceString(rep.Result.Trace))
		}
		if !rep.OK() {
			failed++
			fmt.Fprintf(stdout, "seed %d: %v\n", s, rep.Violations)
		}
	}
	fmt.Fprintf(stdout, "%s: %d schedules, %d with violations\n", *recipe, *schedules, failed)
	if failed > 0 {
		return 1
	}
	return 0
}

var defaultFaults = sim.Faults{Percent: 10, LoseRequest: 2, LoseReply: 2, Disconnect: 2, Crash: 1, Pause: 1, Reap: 1}

func defaultServer(seed uint64) fakezk.Config {
	return fakezk.Config{Seed: seed, Followers: int(seed % 2)}
}
