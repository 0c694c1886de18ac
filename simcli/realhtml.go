package simcli

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/history"
	"github.com/zksim/zksim/internal/nemesis"
	"github.com/zksim/zksim/linearize"
	"github.com/zksim/zksim/report"
	"github.com/zksim/zksim/zkapi"
)

// A real run's HTML report is package report's page, fed a trace made
// of the run's recorded history (internal/history: each acquisition's
// calls, returns, wake-ups, holds) and the nemesis's injections, merged
// in time order: a step is one recorded event, its time the
// milliseconds since the run began (the trace's "t"). The holds and the
// violations, which the run's checkers word on its own logical clock,
// are moved onto those steps, so that the page marks the violating
// holds, steps and wake-ups as it does for a simulated failure.

// realEvent is one line of the report's trace.
type realEvent struct {
	at   int64 // nanoseconds since the run began
	text string
	// lostCreate is the directory of a create whose reply never came
	// (the node may exist, unknown to its client): what leaves an orphan.
	lostCreate string
}

// realTimeline is the run laid out in steps.
type realTimeline struct {
	events  []realEvent
	holds   []linearize.Hold // in steps
	logical []clockPair      // the run's clock values with their steps, ascending
	byHold  map[holdKeyReal]linearize.Hold
	expiry  []report.Expiry
	lost    map[string][]int64 // lostCreate's steps by directory
}

// clockPair is a value of the run's logical clock and its step.
type clockPair struct{ logical, step int64 }

// holdKeyReal names one of the run's holds by client and logical start.
type holdKeyReal struct {
	client int
	start  int64
}

// writeHTML writes the report into -out and returns its path.
func (r *realRun) writeHTML(vs []check.Violation) (string, error) {
	if err := os.MkdirAll(r.rc.out, 0o755); err != nil {
		return "", err
	}
	verdict := "ok"
	if len(vs) > 0 {
		verdict = string(worstFirst(vs)[0])
	}
	name := fmt.Sprintf("real-%s-%s-seed%d-%s.html", strings.NewReplacer("/", "_", " ", "_").Replace(r.rc.subject.Name()),
		verdict, r.rc.plan.seed, time.Now().UTC().Format("20060102T150405.000Z"))
	file := filepath.Join(r.rc.out, name)
	return file, report.WriteFile(file, r.htmlFailure(vs))
}

// htmlFailure is what the page shows.
func (r *realRun) htmlFailure(vs []check.Violation) report.Failure {
	tl := r.timeline()
	rc := r.rc
	trace := []string{
		"real run: a step is one recorded event; t is milliseconds since the run began",
		fmt.Sprintf("seed %d, faults %s; the fault schedule drawn from the seed:", rc.plan.seed, rc.real),
	}
	for _, f := range r.schedule {
		trace = append(trace, "  "+f.String())
	}
	for i, e := range tl.events {
		trace = append(trace, fmt.Sprintf("%5d t%d %s", i+1, e.at/int64(time.Millisecond), e.text))
	}
	return report.Failure{
		Title: rc.subject.Name() + " on real servers",
		Seed: fmt.Sprintf("%d (real servers: the fault schedule is drawn from it, the servers' timing is not repeated)",
			rc.plan.seed),
		Workload:   fmt.Sprintf("%s on %s", rc.subject.Shape(), strings.Join(rc.servers, ",")),
		Faults:     r.faultsLine(),
		Replay:     r.rerun(),
		Violations: tl.violations(vs),
		Clients:    rc.workload.Clients,
		Holds:      tl.holds,
		Expiries:   tl.expiry,
		Trace:      trace,
	}
}

// faultsLine words the faults asked, their schedule and what came of it.
func (r *realRun) faultsLine() string {
	var sched []string
	for _, f := range r.schedule {
		sched = append(sched, f.String())
	}
	s := fmt.Sprintf("%s; schedule (seed %d): %s", r.rc.real, r.rc.plan.seed, strings.Join(sched, "; "))
	if len(sched) == 0 {
		s = fmt.Sprintf("%s (seed %d)", r.rc.real, r.rc.plan.seed)
	}
	ins := r.injections()
	s += fmt.Sprintf("; injected %d", len(ins))
	if r.nem != nil {
		if missed := r.nem.Missed(); len(missed) > 0 {
			s += fmt.Sprintf(", not injected %d", len(missed))
		}
	}
	return s
}

// timeline merges the history and the injections into steps.
func (r *realRun) timeline() *realTimeline {
	entries := r.history.rec.Entries()
	var evs []realEvent
	for _, e := range entries {
		if text := entryText(e); text != "" {
			ev := realEvent{at: e.At, text: text}
			if e.Kind == history.Return && e.Op == "create" && errors.Is(e.Err, zkapi.ErrConnectionLoss) {
				ev.lostCreate = path.Dir(e.Path)
			}
			evs = append(evs, ev)
		}
	}
	ins := r.injections()
	for _, in := range ins {
		evs = append(evs, realEvent{at: int64(in.At), text: injectionText(in)})
	}
	// What the checkers judged, once every client had finished.
	evs = append(evs, realEvent{at: r.history.now(), text: "checked: the clients are done"})
	slices.SortStableFunc(evs, func(a, b realEvent) int { return cmp.Compare(a.at, b.at) })
	tl := &realTimeline{events: evs, byHold: map[holdKeyReal]linearize.Hold{}, lost: map[string][]int64{}}
	for i, e := range evs {
		if e.lostCreate != "" {
			tl.lost[e.lostCreate] = append(tl.lost[e.lostCreate], int64(i+1))
		}
	}
	for _, in := range ins {
		if in.Kind == nemesis.Expire && in.Client >= 0 {
			tl.expiry = append(tl.expiry, report.Expiry{Step: int(tl.step(int64(in.At))), Client: in.Client})
		}
	}
	tl.placeHolds(r, entries)
	return tl
}

// step is the step of the first event at or after at (from 1).
func (tl *realTimeline) step(at int64) int64 {
	i, _ := slices.BinarySearchFunc(tl.events, at, func(e realEvent, t int64) int { return cmp.Compare(e.at, t) })
	return int64(min(i, len(tl.events)-1) + 1)
}

// placeHolds pairs each client's k-th hold of the run with its k-th
// acquisition the history saw held, and lays it out in steps.
func (tl *realTimeline) placeHolds(r *realRun, entries []history.Entry) {
	type open struct{ call, start, end int64 }
	seen := map[int][]open{}
	for _, e := range entries {
		c := seen[e.Client]
		switch e.Kind {
		case history.Acquire:
			seen[e.Client] = append(c, open{call: e.At, start: -1, end: -1})
		case history.Held:
			if len(c) > 0 {
				c[len(c)-1].start = e.At
			}
		case history.GaveUp:
			seen[e.Client] = c[:max(0, len(c)-1)]
		case history.Release:
			if len(c) > 0 {
				c[len(c)-1].end = e.At
			}
		}
	}
	next := map[int]int{}
	for _, h := range r.holds {
		k := next[h.Client]
		next[h.Client]++
		if k >= len(seen[h.Client]) || seen[h.Client][k].start < 0 {
			continue
		}
		o := seen[h.Client][k]
		sh := linearize.Hold{Client: h.Client, Lock: h.Lock, Mode: h.Mode, Call: tl.step(o.call), Start: tl.step(o.start), End: -1}
		if o.end >= 0 {
			sh.End = tl.step(o.end)
		}
		if h.End == h.Start {
			sh.End = sh.Start // lost while holding: an empty section, as the checkers count it
		}
		tl.holds = append(tl.holds, sh)
		tl.byHold[holdKeyReal{h.Client, h.Start}] = sh
		tl.logical = append(tl.logical, clockPair{h.Call, sh.Call}, clockPair{h.Start, sh.Start}, clockPair{h.End, max(sh.End, sh.Start)})
	}
	slices.SortFunc(tl.logical, func(a, b clockPair) int { return cmp.Compare(a.logical, b.logical) })
}

// fromLogical is the step of a value of the run's logical clock: that of
// the latest hold event at or before it.
func (tl *realTimeline) fromLogical(v int64) int64 {
	i, found := slices.BinarySearchFunc(tl.logical, v, func(p clockPair, v int64) int { return cmp.Compare(p.logical, v) })
	switch {
	case found:
		return tl.logical[i].step
	case i == 0:
		return 1
	}
	return tl.logical[i-1].step
}

// The wordings the page reads marks from (package report's derive):
// holds "c3 (exclusive, 52-60)" and "step N" on the run's logical
// clock, and a herd's wake-ups "at N" in nanoseconds.
var (
	realHoldRef = regexp.MustCompile(`c([0-9]+) \((\w+), ([0-9]+)-([0-9]+|end)\)`)
	realStepRef = regexp.MustCompile(`step ([0-9]+)`)
	realWokeAt  = regexp.MustCompile(` at ([0-9]+) \(watch set at ([0-9]+)\)`)
)

// violations are vs as the page reads them: in steps.
func (tl *realTimeline) violations(vs []check.Violation) []check.Violation {
	out := make([]check.Violation, len(vs))
	for i, v := range vs {
		v.Detail, v.Cause = tl.inSteps(v.Detail), tl.inSteps(v.Cause)
		v.Steps = nil // the page derives them from the wording
		chain := make([]check.Link, len(v.Chain))
		var woken []string
		for j, l := range v.Chain {
			if m := realWokeAt.FindStringSubmatch(l.What); m != nil {
				at, _ := strconv.ParseInt(m[1], 10, 64)
				set, _ := strconv.ParseInt(m[2], 10, 64)
				l.Step = int(tl.step(at))
				l.What = realWokeAt.ReplaceAllString(l.What, fmt.Sprintf(" at step %d (watch set at step %d)", l.Step, tl.step(set)))
				woken = append(woken, strconv.Itoa(l.Step))
			} else {
				l.Step = int(tl.fromLogical(int64(l.Step)))
				l.What = tl.inSteps(l.What)
			}
			chain[j] = l
		}
		v.Chain = chain
		if len(woken) > 0 {
			v.Detail += " (woken at step " + strings.Join(woken, ", step ") + ")"
		}
		if v.Class == check.Orphan {
			v.Detail += tl.orphanSteps(v.Detail)
		}
		out[i] = v
	}
	return out
}

// orphanSteps words where an orphan shows: found at the last step, and
// left, perhaps, by a create under its directory whose reply was lost.
func (tl *realTimeline) orphanSteps(detail string) string {
	s := fmt.Sprintf(" (found at step %d", len(tl.events))
	dir, _, _ := strings.Cut(detail, " still has")
	if lost := tl.lost[dir]; len(lost) > 0 {
		var steps []string
		for _, l := range lost {
			steps = append(steps, fmt.Sprintf("step %d", l))
		}
		s += "; a create under it got no reply at " + strings.Join(steps, ", ")
	}
	return s + ")"
}

// inSteps rewords s's holds and steps from the run's clock into steps.
func (tl *realTimeline) inSteps(s string) string {
	s = realHoldRef.ReplaceAllStringFunc(s, func(ref string) string {
		m := realHoldRef.FindStringSubmatch(ref)
		c, _ := strconv.Atoi(m[1])
		start, _ := strconv.ParseInt(m[3], 10, 64)
		h, ok := tl.byHold[holdKeyReal{c - 1, start}]
		if !ok {
			return ref
		}
		end := "end"
		if h.End >= 0 {
			end = strconv.FormatInt(h.End, 10)
		}
		return fmt.Sprintf("c%d (%s, %d-%s)", c, m[2], h.Start, end)
	})
	return realStepRef.ReplaceAllStringFunc(s, func(ref string) string {
		v, _ := strconv.ParseInt(strings.TrimPrefix(ref, "step "), 10, 64)
		return fmt.Sprintf("step %d", tl.fromLogical(v))
	})
}

// entryText is a history entry as a trace line, in the words package
// report reads ("send c1 create PATH -> path=NODE"); "" for those it
// leaves out (calls, whose returns say them, and waits).
func entryText(e history.Entry) string {
	c := e.Client + 1
	switch e.Kind {
	case history.Acquire:
		if e.Read {
			return fmt.Sprintf("acquire c%d for reading", c)
		}
		return fmt.Sprintf("acquire c%d", c)
	case history.Held:
		return fmt.Sprintf("held c%d", c)
	case history.GaveUp:
		return fmt.Sprintf("c%d: acquire failed", c)
	case history.Release:
		return fmt.Sprintf("release c%d", c)
	case history.Released:
		return fmt.Sprintf("released c%d", c)
	case history.Woken:
		return fmt.Sprintf("woken c%d %s", c, e.Event)
	case history.Return:
		where, result := cmp.Or(e.Path, "-"), "OK"
		switch {
		case e.Err != nil:
			result = "err=" + zkapi.Name(e.Err)
		case e.Result != "":
			result = "OK path=" + e.Result
		}
		return fmt.Sprintf("send c%d %s %s -> %s", c, e.Op, where, result)
	}
	return ""
}

// pauseFor reads a pause's length from its injection's words.
var pauseFor = regexp.MustCompile(`for (\S+) from`)

// injectionText is an injection as a trace line: a client fault in the
// simulator's words ("lose-reply c1 ...", "pause c1 for N ticks"), a
// member's as "member ...".
func injectionText(in nemesis.Injection) string {
	if in.Client < 0 {
		who := "leader"
		if in.Member >= 0 {
			who = strconv.Itoa(in.Member + 1)
		}
		return fmt.Sprintf("member %s %s: %s", who, in.Kind, in.What)
	}
	if m := pauseFor.FindStringSubmatch(in.What); in.Kind == "pause" && m != nil {
		if d, err := time.ParseDuration(m[1]); err == nil {
			return fmt.Sprintf("pause c%d for %d ticks (1 tick = 1 ms): %s", in.Client+1, d.Milliseconds(), in.What)
		}
	}
	return fmt.Sprintf("%s c%d: %s", in.Kind, in.Client+1, in.What)
}
