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

// commands are the subcommands, by name.
var commands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"demo": runDemo, "run": runRun, "replay": runReplay, "list": runList, "herd": runHerd, "serve": runServe,
}

func run(args []string, stdout, stderr io.Writer) int {
	cmd := "run"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	if c, ok := commands[cmd]; ok {
		return c(args, stdout, stderr)
	}
	if cmd == "help" {
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "zksim: unknown command %q\n%s", cmd, usage)
	return 2
}

func runDemo(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("demo", usage, stderr)
	clients := fs.Int("clients", 4, "number of clients in the queue (2-50)")
	seed := fs.Uint64("seed", 1, "seed of the server's free choices (child order)")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(fs, "unexpected argument %q", fs.Arg(0))
	}
	if *clients < 2 || *clients > 50 {
		return usageError(fs, "-clients must be between 2 and 50, got %d", *clients)
	}
	if err := demo(stdout, *clients, *seed); err != nil {
		fmt.Fprintf(stderr, "zksim demo: %v\n", err)
		return 1
	}
	return 0
}
