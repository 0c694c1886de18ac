// Package traceview shows a saved trace to a reader: a line per event
// with a unique step, runs of ticks collapsed, the steps the violations
// blame marked, in lines or a column per client (View, Write); Legend
// explains the words. The trace file itself is never changed: a view is
// only how it is shown. zksim's commands and the go test half of the
// harness show failures through it.
package traceview

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/sim"
)

// Line is one line of a trace as a reader sees it: the saved line
// (Raw, as sim wrote it and the trace file keeps it) taken apart, with a
// unique ID and the violations that blame its step.
type Line struct {
	// ID is unique within a trace: the step number for a step's first
	// line, "12.1", "12.2" for the lines a client logged in that step
	// after it; a collapsed run of ticks is "41-81".
	ID     string
	Step   int   // the scheduler's step (several lines may share one)
	Last   int   // a collapsed run of ticks: its last step; else Step
	Time   int64 // virtual time in ticks; a collapsed run: at its start
	Client int   // 1 for c1, ...; 0 for the ensemble (tick, catchup, reap)
	Text   string
	// Blamed lists the classes of the violations that blame this line's
	// step (Violation.Steps, and the steps of their Chain), worst first;
	// empty if none.
	Blamed []check.Class
	// Why says what each violation's cause has happen at this step
	// (Violation.Chain), on a step's first line only: "herd: c2 woken".
	Why []string
	Raw string
}

// traceLines takes a trace apart, one Line per saved line, and marks
// the lines whose steps vs blame. A line that is not in sim's form (step,
// time, text) is kept whole as Text.
func traceLines(trace []string, vs []check.Violation) []Line {
	blame := map[int][]check.Class{}
	why := map[int][]string{}
	for _, v := range vs {
		steps := slices.Clone(v.Steps)
		for _, l := range v.Chain {
			steps = append(steps, l.Step)
			why[l.Step] = append(why[l.Step], fmt.Sprintf("%s: %s", v.Class, l.What))
		}
		for _, s := range steps {
			if !slices.Contains(blame[s], v.Class) {
				blame[s] = append(blame[s], v.Class)
			}
		}
	}
	out := make([]Line, 0, len(trace))
	prev, sub := -1, 0
	for _, raw := range trace {
		l := ParseLine(raw)
		if l.Step == prev {
			sub++
			l.ID = fmt.Sprintf("%d.%d", l.Step, sub)
		} else {
			prev, sub = l.Step, 0
			l.ID = strconv.Itoa(l.Step)
			l.Why = why[l.Step]
		}
		l.Blamed = blame[l.Step]
		out = append(out, l)
	}
	return out
}

// ParseLine reads "%5d t%-3d text".
func ParseLine(raw string) Line {
	l := Line{Raw: raw, Text: raw}
	step, rest, ok1 := strings.Cut(strings.TrimLeft(raw, " "), " ")
	tm, text, ok2 := strings.Cut(rest, " ")
	n, err1 := strconv.Atoi(step)
	t, err2 := strconv.ParseInt(strings.TrimPrefix(tm, "t"), 10, 64)
	if !ok1 || !ok2 || err1 != nil || err2 != nil || !strings.HasPrefix(tm, "t") {
		return l
	}
	l.Step, l.Last, l.Time, l.Text = n, n, t, strings.TrimLeft(text, " ")
	l.Client = lineClient(l.Text)
	return l
}

// lineClient is the client a line's text is about: "cN: ..." (logged by
// cN) or "KIND cN ...", else 0.
func lineClient(text string) int {
	first, rest, _ := strings.Cut(text, " ")
	if c, ok := clientNumber(strings.TrimSuffix(first, ":")); ok && strings.HasSuffix(first, ":") {
		return c
	}
	second, _, _ := strings.Cut(rest, " ")
	if c, ok := clientNumber(second); ok {
		return c
	}
	return 0
}

func clientNumber(s string) (int, bool) {
	if !strings.HasPrefix(s, "c") {
		return 0, false
	}
	n, err := strconv.Atoi(s[1:])
	return n, err == nil && n > 0
}

// minTickRun is the shortest run of ticks collapseTicks folds.
const minTickRun = 3

// collapseTicks folds every run of minTickRun or more consecutive tick
// lines that no violation blames into one line, "ticks t13..t53".
func collapseTicks(lines []Line) []Line {
	var out []Line
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && lines[j].Text == "tick" && len(lines[j].Blamed) == 0 {
			j++
		}
		if j-i < minTickRun {
			out = append(out, lines[i])
			i++
			continue
		}
		first, last := lines[i], lines[j-1]
		first.ID = fmt.Sprintf("%d-%d", first.Step, last.Step)
		first.Last = last.Step
		first.Text = fmt.Sprintf("ticks t%d..t%d", first.Time, last.Time)
		first.Raw = ""
		out = append(out, first)
		i = j
	}
	return out
}

// View is how Write shows a trace.
type View struct {
	// Columns shows one column per client (and one for the ensemble)
	// instead of one event per line, each cell wrapped to a few rows.
	Columns bool
	// Width bounds a columns view's lines; default 160.
	Width int
	// Dir, if set, is left out of the paths in a columns view (the lock
	// directory: "/locks/l/lock-c1_0-1" shows as "lock-c1_0-1").
	Dir string
	// Legend writes the const Legend first.
	Legend bool
	// Full keeps every tick line instead of collapsing runs of them.
	Full bool
	// Raw writes the saved lines as they are, byte for byte (and the
	// legend, if asked): no marks, no collapsing.
	Raw bool
}

// Parse reads a view's name: lines (the default view), columns or
// raw, the names in Names.
func Parse(name string) (View, error) {
	switch name {
	case "lines":
		return View{}, nil
	case "columns":
		return View{Columns: true}, nil
	case "raw":
		return View{Raw: true}, nil
	}
	return View{}, fmt.Errorf("%w: want %s, got %q", ErrView, strings.Join(Names, ", "), name)
}

// Names are the names Parse knows.
var Names = []string{"lines", "columns", "raw"}

// ErrView is wrapped by Parse's errors.
var ErrView = errors.New("harness: unknown trace view")

// Write writes a trace for a reader: a line per event with a unique
// step, runs of ticks collapsed, the steps vs blame marked with "!" and
// "<- class", in lines or columns (see View). The saved trace file is
// unchanged: this is only how it is shown.
func Write(w io.Writer, trace []string, vs []check.Violation, v View) {
	if v.Legend {
		io.WriteString(w, Legend)
		io.WriteString(w, "\n")
	}
	if v.Raw {
		io.WriteString(w, sim.TraceString(trace))
		return
	}
	lines := traceLines(trace, vs)
	if !v.Full {
		lines = collapseTicks(lines)
	}
	if v.Columns {
		writeColumns(w, lines, v)
		return
	}
	idw := idWidth(lines)
	for _, l := range lines {
		if l.Raw != "" && l.Text == l.Raw { // not in sim's form
			fmt.Fprintln(w, l.Raw)
			continue
		}
		fmt.Fprintf(w, "%s %*s t%-3d %s%s\n", mark(l), idw, l.ID, l.Time, l.Text, blameSuffix(l))
	}
}

func idWidth(lines []Line) int {
	n := 4
	for _, l := range lines {
		n = max(n, len(l.ID))
	}
	return n
}

func mark(l Line) string {
	if len(l.Blamed) > 0 {
		return "!"
	}
	return " "
}

// blameSuffix is "  <- herd", or on a step of a cause's chain what
// happened there: "  <- herd: c2 woken by zxid 13".
func blameSuffix(l Line) string {
	switch {
	case len(l.Blamed) == 0:
		return ""
	case len(l.Why) > 0:
		return "  <- " + strings.Join(l.Why, "; ")
	}
	return "  <- " + blamedWords(l)
}

// blamedWords lists a line's blamed classes, comma-separated.
func blamedWords(l Line) string {
	ws := make([]string, len(l.Blamed))
	for i, c := range l.Blamed {
		ws[i] = string(c)
	}
	return strings.Join(ws, ", ")
}

// Columns view.

const (
	ensembleWidth = 14 // "ticks t13..t53", "catchup f1"
	cellRows      = 4  // rows a cell wraps to before it is cut
	columnGap     = " | "
)

func writeColumns(w io.Writer, lines []Line, v View) {
	clients := 0
	for _, l := range lines {
		clients = max(clients, l.Client)
	}
	width := v.Width
	if width <= 0 {
		width = 160
	}
	idw := idWidth(lines)
	prefix := 1 + 1 + idw + 1 + 4 + 1 // mark, space, id, space, time, space
	cw := max(12, (width-prefix-ensembleWidth-len(columnGap)*clients)/max(clients, 1))
	head := []string{"ensemble"}
	for c := 1; c <= clients; c++ {
		head = append(head, "c"+strconv.Itoa(c))
	}
	writeRow(w, fmt.Sprintf("  %*s %-4s ", idw, "step", "time"), head, cw)
	for _, l := range lines {
		cells := make([]string, clients+1)
		cells[l.Client] = compact(l, v.Dir)
		if len(l.Blamed) > 0 { // the ensemble's column is mostly empty
			cells[0] = strings.TrimSpace(cells[0] + " <- " + blamedWords(l))
		}
		writeRow(w, fmt.Sprintf("%s %*s t%-3d ", mark(l), idw, l.ID, l.Time), cells, cw)
	}
}

// writeRow writes one trace line as one or more rows: each cell wrapped
// to its column's width, cut after cellRows rows.
func writeRow(w io.Writer, prefix string, cells []string, cw int) {
	wrapped := make([][]string, len(cells))
	rows := 1
	for i, c := range cells {
		width := cw
		if i == 0 {
			width = ensembleWidth
		}
		wrapped[i] = wrap(c, width, cellRows)
		rows = max(rows, len(wrapped[i]))
	}
	blank := strings.Repeat(" ", utf8.RuneCountInString(prefix))
	for r := range rows {
		var b strings.Builder
		if r == 0 {
			b.WriteString(prefix)
		} else {
			b.WriteString(blank)
		}
		for i, cell := range wrapped {
			width := cw
			if i == 0 {
				width = ensembleWidth
			} else {
				b.WriteString(columnGap)
			}
			part := ""
			if r < len(cell) {
				part = cell[r]
			}
			b.WriteString(part + strings.Repeat(" ", width-utf8.RuneCountInString(part)))
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// wrap breaks s into rows of at most width runes, at spaces where it
// can, and cuts it after rows rows, ending the last with "…".
func wrap(s string, width, rows int) []string {
	var out []string
	for s != "" {
		if utf8.RuneCountInString(s) <= width {
			out = append(out, s)
			break
		}
		r := []rune(s)
		cut := width
		if i := strings.LastIndex(string(r[:width+1]), " "); i > 0 {
			cut = utf8.RuneCountInString(string(r[:width+1])[:i])
		}
		out = append(out, strings.TrimRight(string(r[:cut]), " "))
		s = strings.TrimLeft(string(r[cut:]), " ")
	}
	if len(out) > rows {
		out = out[:rows]
		last := []rune(out[rows-1])
		if len(last) >= width {
			last = last[:width-1]
		}
		out[rows-1] = string(last) + "…"
	}
	return out
}

var (
	statField = regexp.MustCompile(` stat=\{[^}]*\}`)
	seqSuffix = regexp.MustCompile(`-\d{10}\b`) // a sequential node's counter
	// a GUID in a node's name (Curator's protected mode): its first
	// digits tell the clients' nodes apart
	guid = regexp.MustCompile(`([0-9a-f]{6})(?:[0-9a-f]{26}|[0-9a-f]{2}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`)
)

// compact shortens a line's text for a column: its client's name (the
// column says it), Stat blobs, zero padding of sequence numbers and all
// but the first digits of GUIDs go, and so does dir in paths.
func compact(l Line, dir string) string {
	t := l.Text
	if l.Client > 0 {
		name := "c" + strconv.Itoa(l.Client)
		if rest, ok := strings.CutPrefix(t, name+": "); ok {
			t = rest
		} else {
			t = strings.Replace(t, " "+name, "", 1)
		}
	}
	t = statField.ReplaceAllString(t, "")
	t = strings.ReplaceAll(t, "ephemeral-sequential", "eph-seq")
	t = guid.ReplaceAllString(t, "$1…")
	t = seqSuffix.ReplaceAllStringFunc(t, func(m string) string {
		n, _ := strconv.Atoi(m[1:])
		return "-" + strconv.Itoa(n)
	})
	if dir != "" {
		t = strings.ReplaceAll(t, dir+"/", "")
	}
	return t
}

// Legend explains a trace's words and abbreviations to a reader who
// has not seen one; `zksim explain` prints it, and a trace view can start
// with it. It is never part of a trace file.
const Legend = `How to read a zksim trace:
  STEP TIME TEXT   one line per event; STEP is the scheduler's step, and
                   12.1, 12.2 are more lines of step 12 (what a client's
                   program logged in it); TIME tN is virtual time, N ticks
  ! ... <- CLASS   a step the verdict blames, and which violation blames it;
                   on a step of its cause, what happened there
  cN               simulated client N; cN: TEXT is what its program logged
  send cN REQ -> REPLY   the server applied cN's request REQ and answered
  lose-reply cN REQ -> REPLY   fault: applied, but the reply never arrives
  lose-request cN REQ    fault: the request is lost before the server
  recv cN reply    cN receives its reply (its program goes on from there)
  recv cN EVENT    cN receives a watch notification: NodeDeleted /path, ...
  wake cN          cN's wait ends: a watch fired, a sleep or deadline ended
  tick, ticks tA..tB    virtual time advances, one tick per step
  catchup fN       follower N applies the leader's log (until then it
                   serves stale reads to the clients connected to it)
  reap             the container reaper deletes empty container nodes
  disconnect, crash, pause, abandon, reorder cN   faults (see zksim list)
  reconnect cN -> session 0x..   cN is connected again (or learns its
                   session expired, and opens a new one)
Requests: create PATH "DATA" MODE, delete PATH v=-1 (any version), get,
  children, exists PATH [watch] (watch: sets a watch), set PATH "DATA" v=N,
  multi [...].
Replies: z=ZXID (the server's last transaction id when it answered), the
  result (OK, NoNode, NodeExists, ...), then path= (created), data=,
  children=[...] and stat={c m p t v cv av eph dl nc}: a node's Stat,
  c czxid (the transaction that created it), m mzxid (last set), p pzxid
  (last child change), t ctime/mtime in ms, v version, cv cversion (child
  changes), av ACL version, eph the ephemeral owner's session (0x0: not
  ephemeral), dl data length, nc number of children.
`
