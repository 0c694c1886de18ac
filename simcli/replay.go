package simcli

import (
	"fmt"
	"io"
	"os"

	"github.com/zksim/zksim/harness"
)

// runReplay re-runs a saved trace file, prints its trace (byte for byte the
// saved one with -view raw; else as harness.WriteTrace shows it) and the
// checkers' verdicts.
func (c *CLI) runReplay(args []string, stdout, stderr io.Writer) int {
	fs := NewFlags("replay", fmt.Sprintf("usage: %s replay [-view lines|columns|raw] FILE\n\n"+
		"Re-run a saved trace, check that it replays byte for byte, and check it again.\n\n", c.name()), stderr)
	viewName := viewFlag(fs)
	if code := ParseFlags(fs, args); code >= 0 {
		return code
	}
	view, err := parseView(*viewName)
	if err != nil {
		return c.usageError(fs, "%v", err)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	path := fs.Arg(0)
	text, err := os.ReadFile(path)
	if err != nil {
		return c.usageError(fs, "%v", err)
	}
	f, err := harness.ParseTraceFile(string(text))
	if err != nil {
		return c.usageError(fs, "%s: %v", path, err)
	}
	w, ok := c.replayed(f)
	if !ok {
		return c.usageError(fs, "%s: unknown recipe %q (known: %s)", path, f.Recipe, c.recipeNames())
	}
	if err := harness.Validate(f.Config, w); err != nil {
		return c.usageError(fs, "%s: %v", path, err)
	}
	rep, err := harness.Replay(f, w)
	if rep != nil {
		view.Dir = f.Workload.Dir
		if f.Barrier != nil {
			view.Dir = f.Barrier.Dir
		}
		harness.WriteTrace(stdout, rep.Result.Trace, rep.Violations, view)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s replay: %s: %v\n", c.name(), path, err)
		return ExitViolation
	}
	if rep.OK() {
		fmt.Fprintln(stdout, "verdict: no violations")
		return ExitOK
	}
	fmt.Fprintln(stdout, "verdict:")
	for _, v := range rep.Violations {
		fmt.Fprintf(stdout, "  %v\n", v)
	}
	return ExitViolation
}

// replayed is what a trace file ran, with its recipe, lock or barrier,
// looked up by name; ok is false if c has no such recipe.
func (c *CLI) replayed(f harness.TraceFile) (w harness.Subject, ok bool) {
	if f.Barrier != nil {
		b, ok := c.barrier(f.Recipe)
		bw := *f.Barrier
		bw.Recipe = b.Recipe
		return bw, ok
	}
	r, ok := c.recipe(f.Recipe)
	lw := f.Workload
	lw.Recipe = r
	return lw, ok
}
