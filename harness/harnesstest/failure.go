package harnesstest

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/internal/counterexample"
	"github.com/zksim/zksim/internal/traceview"
)

// excerptLines bounds the trace a test log shows of a counterexample; the
// trace file has all of it.
const excerptLines = 40

// failures reports the failures of a check of a Subject.
type failures struct {
	what       string        // the Subject's name: a recipe's, or "programs"
	test       string        // the test's name: artifact names start with it
	dir        string        // where they go; "" for os.TempDir()/zksim
	shrinkTime time.Duration // 0: -zksim.shrinktime
}

// newFailures reports the failures of t's check of w.
func newFailures(t *testing.T, w harness.Subject, opts Options) failures {
	return failures{what: w.Name(), test: t.Name(), dir: opts.ArtifactDir, shrinkTime: opts.ShrinkTime}
}

// replayCall is the Go code that replays a trace file.
const replayCall = "harnesstest.Replay(t, %q, subject)"

// report shrinks every finding to a minimal counterexample, confirms
// it replays, saves it as a trace file and an HTML report, and words
// the failure: one line per violation class found, then each
// counterexample once.
func (s failures) report(found []finding, schedules int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s in %s (%s of %d):\n", s.what, plural(len(found), "violation class"),
		plural(schedules, "schedule"), plural((schedules+schedulesPerCheck-1)/schedulesPerCheck, "check"), schedulesPerCheck)
	for _, f := range found {
		fmt.Fprintf(&b, "  %-24s in %d, first in schedule %d: %s\n", f.class, f.schedules, f.index, f.first.describe())
	}
	for _, f := range found {
		b.WriteString("\n")
		ce, ok := counterexample.ShrinkFound(f.first.subject, f.first.config, f.first.seed, f.class, s.shrinkWithin())
		if !ok {
			fmt.Fprintf(&b, "%s: schedule %d does not show it when run again: %v\n", f.class, f.index, counterexample.ErrNondeterministic)
			continue
		}
		s.confirmAndWrite(&b, f.class, ce)
	}
	return b.String()
}

// shrinkWithin is the shrinking budget: the option's, or the flag's.
func (s failures) shrinkWithin() time.Duration {
	return cmp.Or(s.shrinkTime, *shrinkTime)
}

// confirmAndWrite runs ce again (counterexample.Confirm) and writes it if it
// replays, or the step where it diverged if it does not.
func (s failures) confirmAndWrite(w io.Writer, class check.Class, ce harness.Counterexample) {
	if err := counterexample.Confirm(ce); err != nil {
		s.writeUnconfirmed(w, class, err)
		return
	}
	s.writeCounterexample(w, class, ce)
}

// writeUnconfirmed says why a class found is not reported.
func (s failures) writeUnconfirmed(w io.Writer, class check.Class, err error) {
	fmt.Fprintf(w, "%s: not reported as a violation: %v\n", class, err)
}

// writeCounterexample saves a counterexample and writes what it shows:
// its size, its violations, the end of its trace, the files, the replay
// call and the test that runs it.
func (s failures) writeCounterexample(w io.Writer, class check.Class, ce harness.Counterexample) {
	rep := ce.Report
	headline := class
	if classes := rep.Classes(); len(classes) > 0 {
		headline = checkers.Worst(classes)
	}
	fmt.Fprintf(w, "%s", class)
	if headline != class {
		fmt.Fprintf(w, " (its counterexample also shows %s, the graver)", headline)
	}
	if ce.Subject.Shape().Each == 0 {
		fmt.Fprintf(w, ", shrunk to %s:\n", plural(len(ce.Decisions), "decision"))
	} else {
		fmt.Fprintf(w, ", shrunk to %s, %s:\n", shape(ce.Subject.Shape()), plural(len(ce.Decisions), "decision"))
	}
	for _, v := range rep.Violations {
		fmt.Fprintf(w, "  %v\n", v)
	}
	writeExcerpt(w, rep.Result.Trace, rep.Violations)
	replay := func(p string) string { return fmt.Sprintf(replayCall, p) }
	// Named after the class the verdict leads with, so that file name and
	// verdict agree.
	if path := counterexample.Save(w, artifactDir(s.dir), s.artifactName(headline), ce, replay); path != "" {
		writeRerun(w, s.test)
	}
}

// artifactName is the start of a failure's file names: the test, what
// it checked, the class (counterexample.Save adds a hash of the trace).
func (s failures) artifactName(class check.Class) string {
	return s.test + "-" + s.what + "-" + string(class)
}

// writeRerun says how to run the replay call: in the failing test, by
// a go test command that works from any directory.
func writeRerun(w io.Writer, test string) {
	root, pkg, ok := packageDir()
	if !ok {
		return
	}
	fmt.Fprintf(w, "in test:  %s, then: cd %s && go test -run '%s' %s\n", test, root, runPattern(test), pkg)
}

// runPattern is the -run pattern that selects exactly test (and its
// subtest path): '^TestX$/^sub$'.
func runPattern(test string) string {
	parts := strings.Split(test, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// packageDir is the module's root and the test's package relative to
// it ("./harness/harnesstest"): go test runs a test in its package's
// directory.
func packageDir() (root, pkg string, ok bool) {
	wd, err := os.Getwd()
	if err != nil {
		return "", "", false
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil {
				return "", "", false
			}
			return dir, "./" + filepath.ToSlash(rel), true
		}
		if filepath.Dir(dir) == dir {
			return "", "", false
		}
	}
}

// artifactDir is where a failure's files go: dir, or by default a zksim
// directory under os.TempDir(), which outlives the test; absolute, so
// that the paths a failure prints work from wherever it is read (go test
// runs a test in its package's directory).
func artifactDir(dir string) string {
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "zksim")
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// writeExcerpt writes the last excerptLines lines of a trace as
// traceview.Write shows it (blamed steps marked, ticks collapsed), saying how
// many came before.
func writeExcerpt(w io.Writer, trace []string, vs []check.Violation) {
	var b strings.Builder
	traceview.Write(&b, trace, vs, traceview.View{})
	lines := strings.SplitAfter(b.String(), "\n")
	lines = lines[:len(lines)-1] // after the last newline
	fmt.Fprintf(w, "  (trace: one event a line; ! marks a step the verdict blames; TraceLegend explains the rest)\n")
	if n := len(lines) - excerptLines; n > 0 {
		fmt.Fprintf(w, "  ... %d earlier lines in the trace file\n", n)
		lines = lines[n:]
	}
	io.WriteString(w, strings.Join(lines, ""))
}
