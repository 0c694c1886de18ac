// Package report renders a failing run as one self-contained HTML page:
// the verdict, what ran (recipe, seed, workload, faults), a timeline of
// the clients with their critical sections and the faults that hit them,
// and the trace beside it with the violating steps highlighted.
//
// The page needs no network: its CSS, SVG and script are inline. Its time
// axis is the trace's steps, the only clock a reader of the trace has;
// every mark links to its trace line and names its step in its tooltip.
// The same input gives the same bytes: the page shows no wall-clock time.
package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"os"
	"slices"

	"github.com/zksim/zksim/linearize"
)

// Failure is what a report shows.
type Failure struct {
	Title      string // what was checked: a recipe's name, or "programs"
	Seed       string // how the run was found, e.g. "3 (shrunk to 40 decisions)"; "" unknown
	Workload   string // one line
	Faults     string // the fault budget, one line
	Replay     string // the command or call that replays it
	Violations []linearize.Violation
	Clients    int              // rows c1..cN; 0: as many as the trace names
	Holds      []linearize.Hold // critical sections, in steps
	Expiries   []Expiry         // sessions the server expired
	Trace      []string         // the trace lines, as sim writes them
	// Steps are the steps that show the violation, as the checkers give
	// them. Nil: they are derived from the violations' wording ("at step
	// 52", "c3 (exclusive, 52-60)").
	Steps []int
}

// Expiry is a session expiry that ended a client's session.
type Expiry struct {
	Step   int
	Client int // 0-based
}

// WriteFile writes the report to path.
func WriteFile(path string, f Failure) error {
	var b bytes.Buffer
	if err := Write(&b, f); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// Write writes the report as HTML.
func Write(w io.Writer, f Failure) error {
	steps, holds := derive(details(f.Violations))
	if f.Steps != nil {
		steps = map[int]bool{}
		for _, s := range f.Steps {
			steps[s] = true
		}
	}
	lines := make([]line, len(f.Trace))
	for i, l := range f.Trace {
		lines[i] = parseLine(l)
	}
	tl := newTimeline(f, lines, steps, holds)
	return page.Execute(w, pageData{
		Failure:    f,
		Verdict:    verdict(f.Violations),
		Violations: sorted(f.Violations),
		Injected:   tl.injected(),
		SVG:        template.HTML(tl.svg()),
		Legend:     legend(),
		Rows:       traceRows(lines, steps, tl),
	})
}

func details(vs []linearize.Violation) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Detail
	}
	return out
}

// sorted lists the violations worst first, as linearize ranks them.
func sorted(vs []linearize.Violation) []linearize.Violation {
	out := slices.Clone(vs)
	slices.SortStableFunc(out, func(a, b linearize.Violation) int {
		return linearize.Severity(a.Class) - linearize.Severity(b.Class)
	})
	return out
}

// verdict is the page's headline: the worst violation class, and how many
// more there are.
func verdict(vs []linearize.Violation) string {
	if len(vs) == 0 {
		return "no violation"
	}
	s := sorted(vs)
	v := s[0].Class
	if len(s) > 1 {
		v += fmt.Sprintf(" (and %d more)", len(s)-1)
	}
	return v
}

type pageData struct {
	Failure
	Verdict    string
	Violations []linearize.Violation
	Injected   string
	SVG        template.HTML
	Legend     []legendEntry
	Rows       []traceRow
}

type legendEntry struct{ Glyph, Colour, Name, Text string }

func legend() []legendEntry {
	out := make([]legendEntry, 0, len(legendOrder))
	for _, k := range legendOrder {
		m := markInfo[k]
		out = append(out, legendEntry{m.glyph, m.colour, m.name, m.legend})
	}
	return out
}

// traceRow is a trace line in the page: the first line of a step carries
// the step's anchor, the timeline's links point at it.
type traceRow struct {
	ID   string
	Bad  bool
	X    string // the step's position on the timeline, for the cursor
	Step string
	Tick string
	Text string
}

func traceRows(lines []line, steps map[int]bool, tl *timeline) []traceRow {
	rows := make([]traceRow, len(lines))
	seen := map[int]bool{}
	for i, l := range lines {
		r := traceRow{Text: l.raw}
		if l.step >= 0 {
			r.Step, r.Tick, r.Text = fmt.Sprint(l.step), fmt.Sprintf("t%d", l.tick), l.text
			r.Bad = steps[l.step]
			r.X = fmt.Sprintf("%.1f", tl.x(l.step))
			if !seen[l.step] {
				seen[l.step] = true
				r.ID = fmt.Sprintf("s%d", l.step)
			}
		}
		rows[i] = r
	}
	return rows
}
