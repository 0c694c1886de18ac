package simcli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/traceview"
)

// runReplay re-runs a saved trace file, prints its trace (byte for byte the
// saved one with -view raw; else as traceview.Write shows it) and the
// checkers' verdicts.
func (c *CLI) runReplay(args []string, stdout, stderr io.Writer) int {
	fs := NewFlags("replay", fmt.Sprintf("usage: %s replay [-view lines|columns|raw] FILE\n\n"+
		"Re-run a saved trace, check that it replays byte for byte, and check it again.\n\n", c.name()), stderr)
	viewName := viewFlag(fs)
	if code := c.parseFlags(fs, args); code >= 0 {
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
	w, ok := c.subject(f.Recipe)
	if !ok {
		return c.usageError(fs, "%s: unknown recipe %q (known: %s)", path, f.Recipe, c.recipeNames())
	}
	w, err = f.Subject(w)
	if err == nil {
		err = harness.Validate(f.Config, w)
	}
	if err != nil {
		return c.usageError(fs, "%s: %v", path, err)
	}
	rep, err := harness.Replay(f, w)
	if err != nil && rep != nil {
		if cut := truncation(f.Trace, rep.Result.Trace); cut != "" {
			return c.usageError(fs, "%s: truncated: %s (the file was cut short; no divergence before)", path, cut)
		}
	}
	if rep != nil {
		view.Dir = specField(f.Workload, "dir")
		traceview.Write(stdout, rep.Result.Trace, rep.Violations, view)
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

// truncation says where saved stops if it is a cut-short copy of
// replayed: its lines but the last are replayed's, and its last is a
// prefix of replayed's line there (whole, or cut within), with less of
// it in all; "" if it is not. A file cut in its trace parses (the trace
// is its last section), and comparing it line by line would call it a
// divergence.
func truncation(saved, replayed []string) string {
	n := len(saved)
	if n == 0 || n > len(replayed) || !slices.Equal(saved[:n-1], replayed[:n-1]) {
		return ""
	}
	last, want := saved[n-1], replayed[n-1]
	switch {
	case !strings.HasPrefix(want, last):
		return ""
	case len(last) < len(want):
		return fmt.Sprintf("its trace stops within line %d of the replay's %d", n, len(replayed))
	case n < len(replayed):
		return fmt.Sprintf("its trace stops after line %d of the replay's %d", n, len(replayed))
	}
	return ""
}
