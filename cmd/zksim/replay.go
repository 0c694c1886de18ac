package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/zksim/zksim/sim"
)

// runReplay re-runs a saved trace file, prints its trace (byte for byte the
// saved one) and the checkers' verdicts.
func runReplay(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, "usage: zksim replay FILE\n\nRe-run a saved trace and check it again.\n") }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	path := fs.Arg(0)
	text, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "zksim replay: %v\n", err)
		return 2
	}
	f, err := sim.ParseTraceFile(string(text))
	if err != nil {
		fmt.Fprintf(stderr, "zksim replay: %s: %v\n", path, err)
		return 2
	}
	r, ok := recipes()[f.Recipe]
	if !ok {
		fmt.Fprintf(stderr, "zksim replay: %s: unknown recipe %q (known: %s)\n", path, f.Recipe, strings.Join(recipeNames(), ", "))
		return 2
	}
	f.Workload.Recipe = r
	rep, err := sim.Replay(f, f.Workload)
	if rep != nil {
		fmt.Fprint(stdout, sim.TraceString(rep.Result.Trace))
	}
	if err != nil {
		fmt.Fprintf(stderr, "zksim replay: %s: %v\n", path, err)
		return 1
	}
	if rep.OK() {
		fmt.Fprintln(stdout, "verdict: no violations")
		return 0
	}
	fmt.Fprintln(stdout, "verdict:")
	for _, v := range rep.Violations {
		fmt.Fprintf(stdout, "  %v\n", v)
	}
	return 1
}
