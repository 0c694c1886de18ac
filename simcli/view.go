package simcli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/traceview"
)

// viewFlag registers -view: how a trace is shown.
func viewFlag(fs *flag.FlagSet) *string {
	return fs.String("view", "lines", "how to show a trace: lines (one event a line, runs of ticks collapsed, "+
		"blamed steps marked), columns (one column per client) or raw (the saved lines as they are)")
}

// parseView reads -view's value: a view with the legend, but for raw.
func parseView(s string) (traceview.View, error) {
	v, err := traceview.Parse(s)
	if err != nil {
		return v, fmt.Errorf("-view must be %s, got %q", strings.Join(traceview.Names, ", "), s)
	}
	v.Legend = !v.Raw
	return v, nil
}

// runExplain prints the trace legend.
func (c *CLI) runExplain(args []string, stdout, stderr io.Writer) int {
	fs := NewFlags("explain", fmt.Sprintf("usage: %s explain\n\nExplain the words and abbreviations of a trace.\n", c.name()), stderr)
	if code := c.parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		return c.usageError(fs, "unexpected argument %q", fs.Arg(0))
	}
	fmt.Fprint(stdout, traceview.Legend)
	return ExitOK
}

// showTrace is a schedule's trace for -trace, in -view's view without the
// legend (printed once per schedule it would drown the traces).
func (rc runConfig) showTrace(rep *harness.Report) string {
	var b strings.Builder
	view := rc.view
	view.Legend, view.Dir = false, specField(rc.subject.Spec(), "dir")
	traceview.Write(&b, rep.Result.Trace, rep.Violations, view)
	return b.String()
}
