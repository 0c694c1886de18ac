package harness

import (
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/report"
	"github.com/zksim/zksim/sim"
)

// traceFile is the saved form of a counterexample.
func (ce Counterexample) traceFile() TraceFile {
	return TraceFile{Recipe: ce.Subject.Name(), Workload: ce.Subject.Spec(), Config: ce.Config.WithDefaults(),
		Decisions: ce.Decisions, Trace: ce.Report.Result.Trace}
}

// SaveCounterexample saves ce's trace file and HTML report into dir,
// named after name and a short hash of the trace file (see SaveFailure),
// and writes to w the files and the command that replays the trace
// (replay(tracePath)), or why it could not save them; it returns the
// trace file's path ("" if unsaved). The hash makes the name unique to
// what ran: a later failure of the same test, or another shard's, saves
// beside it rather than over the file an earlier replay hint names.
// Its Seed goes into the HTML report.
func SaveCounterexample(w io.Writer, dir, name string, ce Counterexample, replay func(tracePath string) string) string {
	file := ce.traceFile()
	tracePath, htmlPath, err := saveFailure(dir, name+"-"+shortHash(file.String()), file, ce.Subject, ce.Report, ce.Seed, replay)
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

// SaveFailure writes a failing run's trace file (which parses back and
// replays) and its HTML report (verdict, timeline and trace in one
// self-contained page) into dir, named after name (.trace and .html), and
// returns their paths (htmlPath "" if the run showed no violation).
func SaveFailure(dir, name string, rep *Report, w Subject, cfg sim.Config, decisions []int) (tracePath, htmlPath string, err error) {
	ce := Counterexample{Subject: w, Config: cfg, Decisions: decisions, Report: rep}
	return saveFailure(dir, name, ce.traceFile(), w, rep, 0, func(p string) string { return "zksim replay " + p })
}

// saveFailure writes the trace file and the HTML report of a failure;
// replay words how to replay the trace file at a path, for the report.
func saveFailure(dir, name string, file TraceFile, w Subject, rep *Report, seed uint64, replay func(string) string) (tracePath, htmlPath string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	base := strings.NewReplacer("/", "_", " ", "_").Replace(name)
	tracePath = filepath.Join(dir, base+".trace")
	if err := os.WriteFile(tracePath, []byte(file.String()), 0o644); err != nil {
		return "", "", err
	}
	if rep.OK() {
		return tracePath, "", nil
	}
	htmlPath = filepath.Join(dir, base+".html")
	if err := report.WriteFile(htmlPath, htmlReport(file, w, rep, seed, replay(tracePath))); err != nil {
		return tracePath, "", err
	}
	return tracePath, htmlPath, nil
}

// WriteFailure saves a counterexample's artifacts into dir (SaveFailure,
// with name) and writes to w its violations, its trace, then the files it
// saved and the command that replays the trace (replay, the command
// before "replay FILE": "go run ./cmd/zksim" for zksim itself), or why it
// could not save them. It returns the trace file's path, "" if unsaved.
// The trace is shown as WriteTrace shows it in view.
func WriteFailure(w io.Writer, dir, name, replay string, ce Counterexample, view TraceView) string {
	rep := ce.Report
	command := func(p string) string { return replay + " replay " + filepath.ToSlash(p) }
	tracePath, htmlPath, err := saveFailure(dir, name, ce.traceFile(), ce.Subject, rep, ce.Seed, command)
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

// writeSaved names a saved failure's files and how to replay it.
func writeSaved(w io.Writer, tracePath, htmlPath, replay string) {
	fmt.Fprintf(w, "trace:    %s\n", tracePath)
	if htmlPath != "" {
		fmt.Fprintf(w, "report:   %s\n", htmlPath)
	}
	fmt.Fprintf(w, "replay:   %s\n", replay)
}

// writeRun writes a failing run's violations, one a line, and its trace.
func writeRun(w io.Writer, vs []check.Violation, trace []string, view TraceView) {
	for _, v := range vs {
		fmt.Fprintf(w, "  %v\n", v)
	}
	fmt.Fprintln(w)
	WriteTrace(w, trace, vs, view)
	fmt.Fprintln(w)
}
