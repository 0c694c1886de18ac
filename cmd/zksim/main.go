// Command zksim explores ZooKeeper coordination code on zksim's in-memory,
// deterministic ZooKeeper.
//
// Usage:
//
//	zksim [demo] [-clients N] [-seed S]
//
// demo (the default) runs a short, deterministic tour of fakezk: a queue of
// ephemeral sequential nodes where each client watches only its
// predecessor, a release that wakes exactly one waiter, a session expiry
// that deletes a holder's node, and the sequence counter pinned at 2^31-1.
//
// run explores seeded schedules of the standard lock workload (5 clients x
// 3 acquisitions, every fault) for a recipe: lock, rwlock or one of the
// zoo's broken ones, and reports violations.
//
// Exit codes: 0 success, 1 a violation (run) or unexpected behaviour
// (demo), 2 usage error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

const usage = `usage: zksim [demo] [-clients N] [-seed S]
       zksim run [-recipe NAME] [-seed S] [-schedules N] [-pct] [-no-faults] [-trace]

Commands:
  demo   a deterministic tour of the in-memory ZooKeeper (default)
  run    explore schedules of a lock recipe with every fault and check them

Exit codes: 0 ok, 1 violation or unexpected behaviour, 2 usage error.
`

func run(args []string, stdout, stderr io.Writer) int {
	cmd := "run"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "demo":
		return runDemo(args, stdout, stderr)
	case "run":
		return runRun(args, stdout, stderr)
	case "replay":
		return runReplay(args, stdout, stderr)
	case "list":
		return runList(args, stdout, stderr)
	case "herd":
		return runHerd(args, stdout, stderr)
	case "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "zksim: unknown command %q\n%s", cmd, usage)
	return 2
}

func runDemo(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	clients := fs.Int("clients", 4, "number of clients in the queue (2-50)")
	seed := fs.Uint64("seed", 1, "seed of the server's free choices (child order)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "zksim demo: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *clients < 2 || *clients > 50 {
		fmt.Fprintf(stderr, "zksim demo: -clients must be between 2 and 50, got %d\n", *clients)
		return 2
	}
	if err := demo(stdout, *clients, *seed); err != nil {
		fmt.Fprintf(stderr, "zksim demo: %v\n", err)
		return 1
	}
	return 0
}
