package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/zksim/zksim/sim"
)

// runReplay re-runs a saved trace file, prints its trace (byte for byte the
// saved one) and the checkers' verdicts.
func runReplay(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("replay", "usage: zksim replay FILE\n\nRe-run a saved trace and check it again.\n", stderr)
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	path := fs.Arg(0)
	text, err := os.ReadFile(path)
	if err != nil {
		return usageError(fs, "%v", err)
	}
	f, err := sim.ParseTraceFile(string(text))
	if err != nil {
		return usageError(fs, "%s: %v", path, err)
	}
	r, ok := recipes()[f.Recipe]
	if !ok {
		return usageError(fs, "%s: unknown recipe %q (known: %s)", path, f.Recipe, strings.Join(recipeNames(), ", "))
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
