// Command zksim explores ZooKeeper coordination code on zksim's in-memory,
// deterministic ZooKeeper, and serves that ZooKeeper to other clients.
//
// Usage:
//
//	zksim [run] [-recipe NAME] [-seed S] [-schedules N | -time D] [-parallel N] [-shard I/N] [-faults SPEC] ...
//	zksim replay [-view lines|columns|raw] FILE
//	zksim list | explain | merge [-json] [-junit FILE] SUMMARY... | version [-json] | herd | demo
//	zksim serve [-addr HOST:PORT] [-control HOST:PORT] [-faults SPEC] ...
//
// run (the default) explores seeded schedules of the standard lock
// workload (5 clients x 3 acquisitions, every fault) for a recipe: lock,
// rwlock, semaphore/2 or /3 (at most N holders), election or one of the
// zoo's broken ones (or of the barrier workload, 3 clients x 2 rounds:
// barrier, barrier/single, barrier/zoo/...), on every core, and reports
// violations; replay re-runs a saved trace byte for byte; run and replay
// show a trace as -view says (lines, one column per client, or the saved
// lines raw); explain prints the words a trace uses; merge joins the
// verdicts of a run's shards; version names the build. run -json and
// -junit FILE write what CI reads (docs/cli.md: Using zksim in CI). These come
// from package simcli, which gives the same command line to any recipe. demo is a short, deterministic tour
// of fakezk; herd counts the notifications one release causes.
//
// serve puts the in-memory ZooKeeper on a TCP port, speaking ZooKeeper's
// client protocol, with a control interface for faults (see serve.go).
//
// Exit codes: 0 success, 1 a violation (run, merge, replay), unexpected
// behaviour (demo) or a server that cannot listen (serve), 2 usage error
// (nothing ran), 3 a run that could not run (servers unreachable) or
// could not write a report, 130 a run stopped by Ctrl-C or SIGTERM before
// it saw a violation.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/simcli"
	"github.com/zksim/zksim/zoo"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// cli is zksim's command line: simcli's commands over the built-in
// recipes, and zksim's own.
func cli() *simcli.CLI {
	c := &simcli.CLI{
		Name: "zksim",
		Recipes: []recipe.Lock{zoo.Mutex(), zoo.RWMutex(), zoo.ReentrantMutex(), zoo.MultiMutex(),
			zoo.Semaphore(2), zoo.Semaphore(3), zoo.Election()},
		Docs: map[string]string{
			"lock":           "herd-free exclusive lock (zksim's lock.Mutex)",
			"rwlock":         "herd-free read/write lock (zksim's rwlock.RWMutex)",
			"lock/reentrant": "lock.Mutex with Reentrant: each acquisition takes it twice on one handle",
			"lock/multi":     "lock.MultiMutex: each acquisition takes two locks, all or nothing",
			"semaphore/2":    "herd-free counting semaphore of 2 leases (zksim's semaphore.Semaphore)",
			"semaphore/3":    "the same semaphore with 3 leases",
			"election":       "leader election with terms: each acquisition campaigns, leads, writes fenced with its term, resigns",
		},
		Aliases: map[string]string{"semaphore": "semaphore/2"},
		Commands: []simcli.Command{
			{Name: "herd", Synopsis: "herd [-waiters 10,100,1000]", Summary: "count the notifications one release causes, per recipe", Run: runHerd},
			{Name: "demo", Synopsis: "demo [-clients N] [-seed S]", Summary: "a deterministic tour of the in-memory ZooKeeper", Run: runDemo},
			{Name: "serve", Synopsis: "serve [-addr HOST:PORT] [-control HOST:PORT] [-faults SPEC] [-v]",
				Summary: "serve the in-memory ZooKeeper over ZooKeeper's protocol, with faults", Run: runServe},
		},
	}
	for _, ex := range zoo.Locks() {
		c.Recipes = append(c.Recipes, ex.Recipe)
		c.Docs[ex.Name] = fmt.Sprintf("BROKEN (%s): %s", ex.Violation, firstSentence(ex.Bug))
	}
	addBarriers(c)
	return c
}

func run(args []string, stdout, stderr io.Writer) int { return cli().Run(args, stdout, stderr) }

func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

const demoUsage = "usage: zksim demo [-clients N] [-seed S]\n\nA short, deterministic tour of the in-memory ZooKeeper.\n\n"

func runDemo(args []string, stdout, stderr io.Writer) int {
	fs := simcli.NewFlags("demo", demoUsage, stderr)
	clients := fs.Int("clients", 4, "number of clients in the queue (2-50)")
	seed := fs.Uint64("seed", 0, "0: children listed in ZooKeeper's order; other values shuffle every listing, seeded (fakezk.Config.Seed)")
	if code := simcli.ParseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		return simcli.UsageError("zksim", fs, "unexpected argument %q", fs.Arg(0))
	}
	if *clients < 2 || *clients > 50 {
		return simcli.UsageError("zksim", fs, "-clients must be between 2 and 50, got %d", *clients)
	}
	if err := demo(stdout, *clients, *seed); err != nil {
		fmt.Fprintf(stderr, "zksim demo: %v\n", err)
		return 1
	}
	return 0
}
