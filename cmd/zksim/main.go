// Command zksim explores ZooKeeper coordination code on zksim's in-memory,
// deterministic ZooKeeper, and serves that ZooKeeper to other clients.
//
// Usage:
//
//	zksim [run] [-recipe NAME] [-seed S] [-schedules N] [-faults SPEC] ...
//	zksim replay FILE
//	zksim list | herd | demo
//	zksim serve [-addr HOST:PORT] [-control HOST:PORT] [-faults SPEC] ...
//
// run (the default) explores seeded schedules of the standard lock
// workload (5 clients x 3 acquisitions, every fault) for a recipe: lock,
// rwlock or one of the zoo's broken ones, and reports violations; replay
// re-runs a saved trace byte for byte. demo is a short, deterministic tour
// of fakezk; herd counts the notifications one release causes.
//
// serve puts the in-memory ZooKeeper on a TCP port, speaking ZooKeeper's
// client protocol, with a control interface for faults (see serve.go).
//
// Exit codes: 0 success, 1 a violation (run), unexpected behaviour (demo)
// or a server that cannot listen (serve), 2 usage error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

const usage = `usage: zksim [run] [-recipe NAME] [-seed S] [-schedules N] [-strategy random|pct] [-faults SPEC] [-trace] [-out DIR]
       zksim replay FILE
       zksim list | herd | demo
       zksim serve [-addr HOST:PORT] [-control HOST:PORT] [-faults SPEC] [-v]

Commands:
  run     explore schedules of a lock recipe with every fault and check them (default)
  replay  replay a saved trace byte for byte
  list    name every recipe, fault and strategy
  herd    count the notifications one release causes, per recipe
  demo    a deterministic tour of the in-memory ZooKeeper
  serve   serve the in-memory ZooKeeper over ZooKeeper's protocol, with faults

'zksim COMMAND -h' shows a command's flags.
Exit codes: 0 ok, 1 violation, unexpected behaviour or cannot serve, 2 usage error.
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
	case "serve":
		return runServe(args, stdout, stderr)
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
