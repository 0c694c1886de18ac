package report

import (
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"

	"github.com/zksim/zksim/check"
)

// The cause of the worst violation is drawn on the timeline as its chain
// (check.Violation.Chain): numbered marks at the links' steps, on the row
// of the client each link names (else on the time row), joined by arrows
// in step order, the first marked as the cause. Its links are listed
// under the verdict too, each linking to its trace line.

// chainOf is the chain the page draws: the worst violation's that has
// one.
func chainOf(vs []check.Violation) []check.Link {
	for _, v := range sorted(vs) {
		if len(v.Chain) > 0 {
			return v.Chain
		}
	}
	return nil
}

// linkClient reads the client a link is about: the first client it
// names, "c3 woken", "abandon c2".
var linkClient = regexp.MustCompile(`\bc([0-9]+)\b`)

// chainY is where a link is drawn: its client's row, else the time row.
func (tl *timeline) chainY(l check.Link) float64 {
	if m := linkClient.FindStringSubmatch(l.What); m != nil {
		if c, _ := strconv.Atoi(m[1]); c >= 1 && c <= tl.clients {
			return tl.rowY(c-1) + rowH/2 + 3
		}
	}
	return axisH + serverH/2
}

// chainX is where a link is drawn across: its step, or the first step
// drawn for one before it (a call made before the trace's first line).
func (tl *timeline) chainX(l check.Link) float64 { return tl.x(max(l.Step, tl.first)) }

// drawChain draws the worst violation's chain of cause.
func (tl *timeline) drawChain(b *strings.Builder) {
	chain := chainOf(tl.f.Violations)
	if len(chain) == 0 {
		return
	}
	b.WriteString(`<g id="chain">`)
	for i := 1; i < len(chain); i++ {
		x0, y0 := tl.chainX(chain[i-1]), tl.chainY(chain[i-1])
		x1, y1 := tl.chainX(chain[i]), tl.chainY(chain[i])
		if x0 == x1 && y0 == y1 {
			continue
		}
		fmt.Fprintf(b, `<line class="chain" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" marker-end="url(#arrow)"/>`, x0, y0, x1, y1)
	}
	root := rootOf(chain)
	for i, l := range chain {
		x, y := tl.chainX(l), tl.chainY(l)
		tip := html.EscapeString(fmt.Sprintf("cause %d of %d, step %d: %s", i+1, len(chain), l.Step, l.What))
		class := "link"
		if i == root {
			class = "link root"
			// Left of the mark, or right of it where the clients' names
			// are.
			lx, anchor := x-11, "end"
			if lx-40 < labelW {
				lx, anchor = x+11, "start"
			}
			fmt.Fprintf(b, `<text class="root" x="%.1f" y="%.1f" text-anchor="%s">cause</text>`, lx, y+4, anchor)
		}
		fmt.Fprintf(b, `<a href="#s%d"><g class="%s"><title>%s</title><circle cx="%.1f" cy="%.1f" r="8"/>`+
			`<text x="%.1f" y="%.1f">%d</text></g></a>`, l.Step, class, tip, x, y, x, y+3.5, i+1)
	}
	b.WriteString(`</g>`)
}

// rootOf is the index of the link the page marks as the cause: the
// first the harness marked Root, else the first.
func rootOf(chain []check.Link) int {
	for i, l := range chain {
		if l.Root {
			return i
		}
	}
	return 0
}

// arrowDef is the arrowhead the chain's lines end with.
const arrowDef = `<defs><marker id="arrow" viewBox="0 0 10 10" refX="18" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">` +
	`<path d="M0,0 L10,5 L0,10 z" fill="#6a1b9a"/></marker></defs>`

// chainRows is the chain as a list under the verdict: "1. step 19: c2
// gave session 0x5 up", each linked to its trace line.
type chainRow struct {
	N    int
	Step int
	What string
	Root bool // the link marked as the cause
}

func chainRows(vs []check.Violation) []chainRow {
	chain := chainOf(vs)
	out := make([]chainRow, len(chain))
	for i, l := range chain {
		out[i] = chainRow{i + 1, l.Step, l.What, i == rootOf(chain)}
	}
	return out
}

// chainSteps is what each chain step's trace row says it shows.
func chainSteps(vs []check.Violation) map[int]string {
	out := map[int]string{}
	for i, l := range chainOf(vs) {
		if s, ok := out[l.Step]; ok {
			out[l.Step] = s + "; " + l.What
			continue
		}
		out[l.Step] = fmt.Sprintf("cause %d: %s", i+1, l.What)
	}
	return out
}
