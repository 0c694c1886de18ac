package simcli

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/faultname"
	"github.com/zksim/zksim/internal/history"
	"github.com/zksim/zksim/internal/nemesis"
)

// liveBounds say when a real run's lack of progress is a deadlock. A
// real server frees a dead holder's lock once its session expires, so
// waiting is not a deadlock until well past a session timeout from the
// last fault: the simulator's "only time could advance" becomes "time
// advanced long past every expiry, and still nothing moved".
type liveBounds struct {
	// settle is how long a fault's effects may last after it ends: a
	// cut session reconnects, or expires, within a session timeout.
	settle time.Duration
	// span is how long no progress must last, after every fault has
	// settled, to be a deadlock.
	span time.Duration
}

// realLiveBounds are a real run's: a deadlock is seen settle+span (12 s)
// after its last fault, well inside the 20 s a waiter's acquisition
// waits (a waiter that gives up and retries still counts as waiting), so
// a run needs -time of at least about 15 s to see one.
var realLiveBounds = liveBounds{settle: realSessionTimeout, span: 2 * realSessionTimeout}

// window is a stretch of the run's history clock (nanoseconds since the
// run began), from inclusive, to exclusive.
type window struct{ from, to int64 }

// liveInput is what the liveness check judges: the recorded history,
// the faults in flight, when the run ended, and what stayed in the lock
// directory.
type liveInput struct {
	entries []history.Entry
	faults  []window // each fault's own span; settle is added to it
	end     int64
	dir     string
	left    []string // dir's children at the end
	lost    lostWrites
}

// liveness judges the run's recorded history (see noProgress), and
// says when the run was too short for a deadlock to be seen.
func (r *realRun) liveness(dir string, left []string, lost lostWrites) []check.Violation {
	b := realLiveBounds
	if budget := r.rc.budget; budget > 0 && budget < b.settle+b.span {
		r.count(fmt.Sprintf("note: liveness unjudged: -time %v < the %v a deadlock takes to be seen after a fault", budget, b.settle+b.span))
	}
	in := liveInput{entries: r.history.rec.Entries(), end: r.history.now(), dir: dir, left: left, lost: lost}
	if r.nem != nil {
		in.faults = faultWindows(r.nem.Injections(), r.nemesisAt)
	}
	return noProgress(in, b)
}

// faultWindows turns the nemesis's injections (timed from its start,
// which was at the history clock's offset) into the spans the faults
// were in flight: a member from its stop or kill to its return, a
// paused client for its stall, any other fault at its moment.
func faultWindows(ins []nemesis.Injection, offset int64) []window {
	var ws []window
	down := map[int]int{} // member -> index in ws of its open window
	last := map[int]int{} // member -> index in ws of its last window
	for _, in := range ins {
		at := offset + int64(in.At)
		w := window{at, at}
		switch {
		case in.Ends():
			// The first end closes the member's window; a later one (the
			// ensemble serving whole again) stretches it.
			if i, ok := down[in.Member]; ok {
				ws[i].to = at
				delete(down, in.Member)
			} else if i, ok := last[in.Member]; ok {
				ws[i].to = max(ws[i].to, at)
			}
			continue
		case in.Member >= 0:
			down[in.Member], last[in.Member] = len(ws), len(ws)
			w.to = 1<<63 - 1 // until it returns
		case in.Kind == faultname.Pause:
			w.to = at + int64(2*realSessionTimeout)
		}
		ws = append(ws, w)
	}
	return ws
}

// noProgress finds the spans, longer than b.span, in which some client
// was trying to acquire, none held, and no fault was in flight or
// settling, and reports each as the simulator's deadlock: who waited,
// since when, on which node of the lock directory (or, if none blocked
// them there, as no-progress).
func noProgress(in liveInput, b liveBounds) []check.Violation {
	tl := buildTimeline(in, b)
	var vs []check.Violation
	for _, s := range tl.stuck(in.end) {
		if s.to-s.from > int64(b.span) {
			vs = append(vs, tl.verdict(in, s))
		}
	}
	return vs
}

// change is one moment of the timeline: how the counts of wanting and
// holding clients and of faults in flight change, and whether a client
// took the lock (progress, even if it let go at the same moment).
type change struct {
	at                int64
	want, hold, fault int
	progress          bool
}

// timeline is the run as counts over time, and each client's waits.
type timeline struct {
	changes []change
	waits   map[int][]window // client -> its waits, in order
}

// buildTimeline reads each client's acquisitions from its marks: a
// client wants the lock from an Acquire to its Held, across a GaveUp
// followed by another Acquire (an acquire timeout and a retry), and
// holds it from Held to Released.
func buildTimeline(in liveInput, b liveBounds) *timeline {
	tl := &timeline{waits: map[int][]window{}}
	type state struct{ want, gave, hold int64 }
	st := map[int]*state{}
	for _, e := range in.entries {
		s := st[e.Client]
		if s == nil {
			s = &state{want: -1, gave: -1, hold: -1}
			st[e.Client] = s
		}
		switch e.Kind {
		case history.Acquire:
			if s.want < 0 {
				s.want = e.At
			}
			s.gave = -1
		case history.GaveUp:
			s.gave = e.At
		case history.Held:
			tl.wait(e.Client, s.want, e.At)
			s.want, s.gave, s.hold = -1, -1, e.At
			tl.changes = append(tl.changes, change{at: e.At, progress: true})
		case history.Released:
			tl.held(s.hold, e.At)
			s.hold = -1
		}
	}
	for c, s := range st {
		switch {
		case s.want >= 0 && s.gave >= 0:
			tl.wait(c, s.want, s.gave)
		case s.want >= 0:
			tl.wait(c, s.want, in.end)
		}
		if s.hold >= 0 {
			tl.held(s.hold, in.end)
		}
	}
	for _, f := range in.faults {
		to := min(f.to, 1<<63-1-int64(b.settle)) + int64(b.settle)
		tl.changes = append(tl.changes, change{at: f.from, fault: 1}, change{at: to, fault: -1})
	}
	slices.SortStableFunc(tl.changes, func(x, y change) int { return cmpInt(x.at, y.at) })
	return tl
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (tl *timeline) wait(client int, from, to int64) {
	if from < 0 {
		return
	}
	tl.waits[client] = append(tl.waits[client], window{from, to})
	tl.changes = append(tl.changes, change{at: from, want: 1}, change{at: to, want: -1})
}

func (tl *timeline) held(from, to int64) {
	if from < 0 {
		return
	}
	tl.changes = append(tl.changes, change{at: from, hold: 1}, change{at: to, hold: -1})
}

// stuck sweeps the timeline: the maximal spans, up to end, in which a
// client wanted the lock, none held it, no fault was in flight, and no
// client took it.
func (tl *timeline) stuck(end int64) []window {
	var out []window
	want, hold, fault := 0, 0, 0
	open := int64(-1)
	for i := 0; i < len(tl.changes); {
		at, progress := tl.changes[i].at, false
		for ; i < len(tl.changes) && tl.changes[i].at == at; i++ {
			c := tl.changes[i]
			want, hold, fault, progress = want+c.want, hold+c.hold, fault+c.fault, progress || c.progress
		}
		isStuck := want > 0 && hold == 0 && fault == 0
		if open >= 0 && (!isStuck || progress) {
			out = append(out, window{open, at})
			open = -1
		}
		if isStuck && open < 0 && at < end {
			open = at
		}
	}
	if open >= 0 {
		out = append(out, window{open, end})
	}
	return out
}

// verdict words a stuck span as the simulator words a deadlock: which
// clients waited, since when, for which node, and the node at the head
// of the queue that blocked them all, and where it came from.
func (tl *timeline) verdict(in liveInput, s window) check.Violation {
	var who, nodes []string
	for _, c := range slices.Sorted(maps.Keys(tl.waits)) {
		for _, w := range tl.waits[c] {
			if w.from >= s.to || w.to <= s.from {
				continue
			}
			desc := fmt.Sprintf("c%d waited (since %s)", c+1, clockWords(w.from))
			if on := lastWatch(in.entries, c, w.from, s.to); on != "" {
				desc += " for the watch on " + on
				nodes = append(nodes, on)
			}
			who = append(who, desc)
		}
	}
	if s.to >= in.end {
		for _, n := range in.left {
			nodes = append(nodes, in.dir+"/"+n)
		}
	}
	v := check.Violation{Class: check.Deadlock,
		Detail: fmt.Sprintf("nothing moved from %s to %s (%s, no fault in flight, no client holding %s) while %s",
			clockWords(s.from), clockWords(s.to), time.Duration(s.to-s.from).Round(time.Millisecond), in.dir, strings.Join(who, "; "))}
	head, ok := queueHead(in.dir, nodes)
	if !ok {
		v.Class = check.NoProgress
		return v
	}
	v.Cause = nodeStory(in, head)
	return v
}

// queueHead is the node of dir, among nodes, with the lowest sequence
// number: in a queue every waiter waits, directly or through others,
// for the node at its head.
func queueHead(dir string, nodes []string) (string, bool) {
	head, best := "", ""
	for _, n := range nodes {
		if !strings.HasPrefix(n, dir+"/") {
			continue
		}
		seq := n[max(0, len(n)-10):]
		if head == "" || seq < best || seq == best && n < head {
			head, best = n, seq
		}
	}
	return head, head != ""
}

// lastWatch is the path client last waited on in [from, to], or "".
func lastWatch(es []history.Entry, client int, from, to int64) string {
	on := ""
	for _, e := range es {
		if e.Client == client && e.Kind == history.Wait && e.At >= from && e.At <= to {
			on = e.Path
		}
	}
	return on
}

// nodeStory says where a blocking node came from: the create whose
// reply named it, or that no client saw it created (a create whose
// reply was lost), and whether it was still there at the end.
func nodeStory(in liveInput, node string) string {
	s := node + " blocked them"
	for _, e := range in.entries {
		if e.Kind == history.Return && e.Err == nil && slices.Contains(strings.Fields(e.Result), node) {
			s += fmt.Sprintf(", created by c%d (session %#x) at %s", e.Client+1, e.Session.ID, clockWords(e.At))
			break
		}
	}
	if !strings.Contains(s, "created by") {
		s += ", a node no create's reply named (its reply lost: an orphan)"
	}
	s += in.lost.story(node)
	if slices.Contains(in.left, strings.TrimPrefix(node, in.dir+"/")) {
		s += ", still there when the run ended"
	}
	return s
}

// clockWords is a history time as the fault report writes it.
func clockWords(at int64) string { return fmt.Sprintf("+%.3fs", time.Duration(at).Seconds()) }
