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
	"html"
	"html/template"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/linearize"
)

// Failure is what a report shows.
type Failure struct {
	Title      string // what was checked: a recipe's name, or "programs"
	Seed       string // how the run was found, e.g. "3 (shrunk to 40 decisions)"; "" unknown
	Workload   string // one line
	Faults     string // the fault budget, one line
	Replay     string // the command or call that replays it
	Violations []check.Violation
	// Notes are findings that are not violations (check.Undecided,
	// check.StaleWakeup), shown apart: a stale wake-up of a replaced
	// session.
	Notes    []check.Violation
	Clients  int              // rows c1..cN; 0: as many as the trace names
	Holds    []linearize.Hold // critical sections, in steps
	Expiries []Expiry         // sessions the server expired
	Trace    []string         // the trace lines, as sim writes them
	// Steps are the steps that show the violation, as the checkers give
	// them. Nil: they are derived from the violations' wording and the
	// trace ("at step 52", "c3 (exclusive, 52-60)", the change of "zxid
	// 19" and the notifications it sent, an orphan's create).
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
	lines := make([]line, len(f.Trace))
	for i, l := range f.Trace {
		lines[i] = parseLine(l)
	}
	ev := derive(details(f.Violations), lines)
	if f.Steps != nil {
		ev.steps = map[int]bool{}
		for _, s := range f.Steps {
			ev.steps[s] = true
		}
	}
	steps := ev.steps
	tl := newTimeline(f, lines, ev)
	return page.Execute(w, pageData{
		Failure:    f,
		Verdict:    verdict(f.Violations),
		Violations: sorted(f.Violations),
		Injected:   tl.injected(),
		SVG:        template.HTML(tl.svg()),
		Legend:     legend(),
		TraceRows:  template.HTML(traceRows(lines, steps, chainSteps(f.Violations), tl)),
		Chain:      chainRows(f.Violations),
	})
}

func details(vs []check.Violation) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Detail
	}
	return out
}

// sorted lists the violations worst first, as check ranks them.
func sorted(vs []check.Violation) []check.Violation {
	out := slices.Clone(vs)
	slices.SortStableFunc(out, func(a, b check.Violation) int {
		return checkers.Severity(a.Class) - checkers.Severity(b.Class)
	})
	return out
}

// verdict is the page's headline: the worst violation class, and how many
// more there are.
func verdict(vs []check.Violation) string {
	if len(vs) == 0 {
		return "no violation"
	}
	s := sorted(vs)
	v := string(s[0].Class)
	if len(s) > 1 {
		v += fmt.Sprintf(" (and %d more)", len(s)-1)
	}
	return v
}

type pageData struct {
	Failure
	Verdict    string
	Violations []check.Violation
	Injected   string
	SVG        template.HTML
	Legend     []legendEntry
	TraceRows  template.HTML
	Chain      []chainRow
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

// traceRows writes the trace as table rows, escaped here rather than by
// the template, which spends most of a report's time on a long trace's
// rows otherwise. The first line of a step carries the step's anchor, the
// timeline's links point at it; every step's row carries its position on
// the timeline, for the cursor.
func traceRows(lines []line, steps map[int]bool, chain map[int]string, tl *timeline) string {
	var b strings.Builder
	seen := map[int]bool{}
	for _, l := range lines {
		if l.step < 0 {
			fmt.Fprintf(&b, "<tr><td class=\"n\"></td><td class=\"n\"></td><td>%s</td></tr>\n", html.EscapeString(l.raw))
			continue
		}
		b.WriteString("<tr")
		why := ""
		if !seen[l.step] {
			seen[l.step] = true
			fmt.Fprintf(&b, ` id="s%d"`, l.step)
			if w, ok := chain[l.step]; ok {
				why = `<span class="why">&larr; ` + html.EscapeString(w) + `</span>`
			}
		}
		if steps[l.step] || chain[l.step] != "" {
			b.WriteString(` class="bad"`)
		}
		fmt.Fprintf(&b, ` data-x="%.1f"><td class="n">%d</td><td class="n">t%d</td><td>%s%s</td></tr>`+"\n",
			tl.x(l.step), l.step, l.tick, html.EscapeString(l.text), why)
	}
	return b.String()
}
