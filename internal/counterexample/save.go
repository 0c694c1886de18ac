package counterexample

import (
	"fmt"
	"hash/fnv"
	"io"
	"path/filepath"
	"strings"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/traceview"
)

// Save saves ce's trace file and HTML report into dir, named after name
// and a short hash of the trace file (see harness.SaveFailure), and
// writes to w the files and the command that replays the trace
// (replay(tracePath)), or why it could not save them; it returns the
// trace file's path ("" if unsaved). The hash makes the name unique to
// what ran: a later failure of the same test, or another shard's, saves
// beside it rather than over the file an earlier replay hint names.
// Its Seed goes into the HTML report.
func Save(w io.Writer, dir, name string, ce harness.Counterexample, replay func(tracePath string) string) string {
	name += "-" + shortHash(ce.TraceFile().String())
	tracePath, htmlPath, err := harness.SaveFailure(dir, name, ce, replay)
	if err != nil {
		fmt.Fprintf(w, "could not save the failure: %v\n", err)
		return ""
	}
	writeSaved(w, tracePath, htmlPath, replay(tracePath))
	return tracePath
}

// shortHash is 8 hex digits of FNV-1a over text.
func shortHash(text string) string {
	h := fnv.New32a()
	io.WriteString(h, text)
	return fmt.Sprintf("%08x", h.Sum32())
}

// Write saves a counterexample's artifacts into dir
// (harness.SaveFailure, with name) and writes to w its violations, its
// trace, then the files it saved and the command that replays the trace
// (replay, the command before "replay FILE": "go run ./cmd/zksim" for
// zksim itself), or why it could not save them. It returns the trace
// file's path, "" if unsaved. The trace is shown as traceview.Write
// shows it in view.
func Write(w io.Writer, dir, name, replay string, ce harness.Counterexample, view traceview.View) string {
	rep := ce.Report
	command := func(p string) string { return replay + " replay " + filepath.ToSlash(p) }
	tracePath, htmlPath, err := harness.SaveFailure(dir, name, ce, command)
	if view.Dir == "" && view.Columns {
		view.Dir = specDir(ce.Subject.Spec())
	}
	writeRun(w, rep.Violations, rep.Result.Trace, view)
	if err != nil {
		fmt.Fprintf(w, "could not save the failure: %v\n", err)
		return ""
	}
	writeSaved(w, tracePath, htmlPath, command(tracePath))
	return tracePath
}

// specDir is the dir= field of a workload line, "" if it has none: the
// directory a columns view leaves out of paths.
func specDir(spec string) string {
	for _, f := range strings.Fields(spec) {
		if d, ok := strings.CutPrefix(f, "dir="); ok {
			return d
		}
	}
	return ""
}

// writeSaved names a saved failure's files and how to replay it.
func writeSaved(w io.Writer, tracePath, htmlPath, replay string) {
	fmt.Fprintf(w, "trace:    %s\n", tracePath)
	if htmlPath != "" {
		fmt.Fprintf(w, "report:   %s\n", htmlPath)
	}
	fmt.Fprintf(w, "replay:   %s\n", replay)
}

// writeRun writes a failing run's violations, one a line, and its trace.
func writeRun(w io.Writer, vs []check.Violation, trace []string, view traceview.View) {
	for _, v := range vs {
		fmt.Fprintf(w, "  %v\n", v)
	}
	fmt.Fprintln(w)
	traceview.Write(w, trace, vs, view)
	fmt.Fprintln(w)
}
