package report

import (
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"

	"github.com/zksim/zksim/linearize"
)

// Timeline geometry, in SVG user units: the page scales the drawing to
// its column, about one unit a pixel on a 1400 px wide screen.
const (
	width   = 820.0
	labelW  = 44.0 // the client names' column
	padR    = 14.0
	axisH   = 22.0 // step numbers
	serverH = 22.0 // ticks and server events
	rowH    = 44.0
	footH   = 8.0
)

// timeline lays the run out: one row per client, steps across.
type timeline struct {
	f       Failure
	lines   []line
	steps   map[int]bool
	holds   map[holdKey]bool
	waiting map[int]bool
	clients int
	first   int // first and last step drawn
	last    int
	crashed map[int]int // client -> step it crashed at
	active  map[int]int // client -> the last step that concerns it
}

func newTimeline(f Failure, lines []line, ev evidence) *timeline {
	tl := &timeline{f: f, lines: lines, steps: ev.steps, holds: ev.holds, waiting: ev.waiting, clients: f.Clients, first: -1,
		crashed: map[int]int{}, active: map[int]int{}}
	for _, l := range lines {
		if l.step < 0 {
			continue
		}
		if tl.first < 0 {
			tl.first = l.step
		}
		tl.last = max(tl.last, l.step)
		kind, c := l.kind, l.client
		tl.clients = max(tl.clients, c+1)
		if c >= 0 {
			tl.active[c] = l.step
		}
		if kind == markCrash {
			if _, ok := tl.crashed[c]; !ok {
				tl.crashed[c] = l.step
			}
		}
	}
	for _, h := range f.Holds {
		tl.clients = max(tl.clients, h.Client+1)
		tl.last = max(tl.last, int(h.End))
	}
	tl.first = max(tl.first, 0)
	tl.last++ // room for holds open at the end
	return tl
}

// x is a step's position.
func (tl *timeline) x(step int) float64 {
	span := float64(max(1, tl.last-tl.first))
	return labelW + float64(step-tl.first)*(width-labelW-padR)/span
}

func (tl *timeline) rowY(client int) float64 { return axisH + serverH + float64(client)*rowH }

func (tl *timeline) height() float64 { return tl.rowY(tl.clients) + footH }

// svg draws the timeline.
func (tl *timeline) svg() string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="timeline" viewBox="0 0 %.0f %.0f" role="img" aria-label="timeline of the clients, steps across">`, width, tl.height())
	b.WriteString(arrowDef)
	tl.drawAxis(&b)
	for c := range tl.clients {
		tl.drawRow(&b, c)
	}
	for _, h := range tl.f.Holds {
		tl.drawHold(&b, h)
	}
	tl.drawMarks(&b)
	tl.drawViolations(&b)
	tl.drawChain(&b)
	fmt.Fprintf(&b, `<line id="cursor" x1="-10" x2="-10" y1="%.0f" y2="%.0f"/>`, axisH, tl.height())
	b.WriteString("</svg>")
	return b.String()
}

// gridStep is the spacing of the step grid: about ten lines across.
func (tl *timeline) gridStep() int {
	span := tl.last - tl.first
	for _, g := range []int{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000} {
		if span/g <= 12 {
			return g
		}
	}
	return 20000
}

func (tl *timeline) drawAxis(b *strings.Builder) {
	g := tl.gridStep()
	for s := (tl.first + g - 1) / g * g; s <= tl.last; s += g {
		x := tl.x(s)
		fmt.Fprintf(b, `<line class="grid" x1="%.1f" x2="%.1f" y1="%.0f" y2="%.0f"/>`, x, x, axisH-4, tl.height())
		fmt.Fprintf(b, `<text class="axis" x="%.1f" y="%.0f">%d</text>`, x, axisH-8, s)
	}
	fmt.Fprintf(b, `<text class="axis name" x="4" y="%.0f">step</text>`, axisH-8)
	fmt.Fprintf(b, `<text class="name" x="4" y="%.0f">time</text>`, axisH+serverH/2+4)
}

func (tl *timeline) drawRow(b *strings.Builder, c int) {
	y := tl.rowY(c)
	if c%2 == 0 {
		fmt.Fprintf(b, `<rect class="band" x="0" y="%.0f" width="%.0f" height="%.0f"/>`, y, width, rowH)
	}
	fmt.Fprintf(b, `<text class="name" x="8" y="%.0f">c%d</text>`, y+rowH/2+4, c+1)
	mid := y + 25
	end := tl.last
	if at, ok := tl.crashed[c]; ok {
		end = at
		fmt.Fprintf(b, `<rect class="dead" x="%.1f" y="%.0f" width="%.1f" height="%.0f"><title>c%d crashed at step %d</title></rect>`,
			tl.x(at), y+2, width-padR-tl.x(at), rowH-4, c+1, at)
	}
	fmt.Fprintf(b, `<line class="life" x1="%.1f" x2="%.1f" y1="%.0f" y2="%.0f"/>`, tl.x(tl.first), tl.x(end), mid, mid)
	for _, p := range tl.pauses(c) {
		fmt.Fprintf(b, `<rect class="paused" x="%.1f" y="%.0f" width="%.1f" height="%.0f"><title>c%d paused: steps %d-%d</title></rect>`,
			tl.x(p[0]), y+2, max(tl.x(p[1])-tl.x(p[0]), 2), rowH-4, c+1, p[0], p[1])
	}
	if tl.waiting[c] {
		from := tl.active[c]
		fmt.Fprintf(b, `<a href="#s%d"><line class="stuck" x1="%.1f" x2="%.1f" y1="%.0f" y2="%.0f"><title>c%d waits from step %d to the end</title></line></a>`,
			from, tl.x(from), tl.x(tl.last), mid, mid, c+1, from)
		fmt.Fprintf(b, `<text class="stuck" x="%.1f" y="%.0f">c%d waits</text>`, tl.x(from)+4, y+14, c+1)
	}
}

// drawHold draws a critical section: the wait from the acquire's call
// as a thin line, the hold as a bar; a hold the violation names in red.
func (tl *timeline) drawHold(b *strings.Builder, h linearize.Hold) {
	y := tl.rowY(h.Client)
	// A hold open at the end runs to the end, a crashed client's too: its
	// session, not the client, holds the lock until it expires.
	end, endText := int(h.End), fmt.Sprint(h.End)
	if h.End < 0 {
		end, endText = tl.last, "the end"
		if at, ok := tl.crashed[h.Client]; ok {
			endText = fmt.Sprintf("the end (crashed at step %d; its session still held it)", at)
		}
	}
	x0, x1 := tl.x(int(h.Start)), tl.x(end)
	fmt.Fprintf(b, `<line class="wait" x1="%.1f" x2="%.1f" y1="%.0f" y2="%.0f"><title>c%d acquiring %s: steps %d-%d</title></line>`,
		tl.x(int(h.Call)), x0, y+25, y+25, h.Client+1, h.Mode, h.Call, h.Start)
	class := "hold " + h.Mode.String()
	if tl.holds[holdKey{h.Client, h.Start}] {
		class += " bad"
	}
	fmt.Fprintf(b, `<a href="#s%d"><rect class="%s" x="%.1f" y="%.0f" width="%.1f" height="14" rx="2"><title>c%d held %s (%s): steps %d-%s</title></rect></a>`,
		h.Start, class, x0, y+18, max(x1-x0, 2), h.Client+1, html.EscapeString(h.Lock), h.Mode, h.Start, endText)
}

// drawMarks draws every trace line that concerns a client on its row, and
// ticks and server events on the time row.
func (tl *timeline) drawMarks(b *strings.Builder) {
	lastTick := -1
	for _, l := range tl.lines {
		if l.step < 0 {
			continue
		}
		kind, c := l.kind, l.client
		tip := html.EscapeString(fmt.Sprintf("step %d (t%d): %s", l.step, l.tick, l.text))
		x := tl.x(l.step)
		switch kind {
		case markNone, markLog:
		case markActivity:
			y := tl.rowY(c)
			fmt.Fprintf(b, `<a href="#s%d"><line class="act" x1="%.1f" x2="%.1f" y1="%.0f" y2="%.0f"><title>%s</title></line></a>`,
				l.step, x, x, y+35, y+41, tip)
		case markTick:
			fmt.Fprintf(b, `<a href="#s%d"><line class="tick" x1="%.1f" x2="%.1f" y1="%.0f" y2="%.0f"><title>%s</title></line></a>`,
				l.step, x, x, axisH+4, axisH+serverH-4, tip)
			if l.tick != lastTick && l.tick%5 == 0 {
				fmt.Fprintf(b, `<text class="tlabel" x="%.1f" y="%.0f">t%d</text>`, x+2, axisH+serverH-6, l.tick)
			}
			lastTick = l.tick
		case markServer:
			tl.glyph(b, kind, l.step, x, axisH+serverH/2, tip)
		default:
			tl.glyph(b, kind, l.step, x, tl.rowY(c)+9, tip)
		}
	}
	for _, e := range tl.f.Expiries {
		if e.Client >= 0 && e.Client < tl.clients {
			tip := fmt.Sprintf("step %d: the server expired c%d's session", e.Step, e.Client+1)
			tl.glyph(b, markExpired, e.Step, tl.x(e.Step), tl.rowY(e.Client)+9, tip)
		}
	}
}

// glyph draws a fault or event mark: a letter in a circle, linked to its
// trace line.
func (tl *timeline) glyph(b *strings.Builder, kind markKind, step int, x, y float64, tip string) {
	m := markInfo[kind]
	fmt.Fprintf(b, `<a href="#s%d"><g class="mark"><title>%s</title><circle cx="%.1f" cy="%.0f" r="7" fill="%s"/>`+
		`<text x="%.1f" y="%.0f">%s</text></g></a>`, step, tip, x, y, m.colour, x, y+3.5, m.glyph)
}

// drawViolations draws a red line at every step that shows a violation.
func (tl *timeline) drawViolations(b *strings.Builder) {
	for s := tl.first; s <= tl.last; s++ {
		if tl.steps[s] {
			x := tl.x(s)
			fmt.Fprintf(b, `<a href="#s%d"><line class="viol" x1="%.1f" x2="%.1f" y1="%.0f" y2="%.0f"><title>step %d shows the violation</title></line></a>`,
				s, x, x, axisH, tl.height(), s)
		}
	}
}

// injected counts the faults the trace shows, by kind, in legend order.
func (tl *timeline) injected() string {
	counts := map[markKind]int{}
	for _, l := range tl.lines {
		if l.step >= 0 {
			counts[l.kind]++
		}
	}
	counts[markExpired] += len(tl.f.Expiries)
	var parts []string
	for _, k := range legendOrder {
		if n := counts[k]; n > 0 && k != markGaveUp && k != markReconnect && k != markServer {
			parts = append(parts, fmt.Sprintf("%s %d", markInfo[k].name, n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// pauseTicks reads a pause's length from its trace line, "pause c1 for 8
// ticks".
var pauseTicks = regexp.MustCompile(`^pause c[0-9]+ for ([0-9]+) ticks`)

// pauses lists a client's pauses as step intervals: from the pause to the
// first step at or after the virtual time it ends (the end of the run if
// none).
func (tl *timeline) pauses(c int) [][2]int {
	var out [][2]int
	for i, l := range tl.lines {
		if l.kind != markPause || l.client != c {
			continue
		}
		m := pauseTicks.FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		end := tl.last
		for _, later := range tl.lines[i+1:] {
			if later.step >= 0 && later.tick >= l.tick+n {
				end = later.step
				break
			}
		}
		out = append(out, [2]int{l.step, end})
	}
	return out
}
