package simcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/internal/nemesis"
	"github.com/zksim/zksim/linearize"
	"github.com/zksim/zksim/zkapi"
)

// The barrier run's verdicts and reports: the visits as the simulator's
// checkers see them, bounded where a real run cannot see a session's
// end; liveness; the text report.

// lossWindow is a stretch of the history clock in which a fault could
// end client's session (-1: any client's, for a member fault).
type lossWindow struct {
	client   int
	from, to int64
}

// lossMargin is how long before its record a fault may have struck: the
// nemesis records an injection once it is done (a forced expiry, once
// the server confirmed it).
const lossMargin = int64(time.Second)

// violations judges the run with the simulator's checkers; the nodes
// left in dir once every client is done (orphans), unless the time
// limit cut some client off (stopped): its node, on a live session, is
// no orphan (the simulator judges none after a bounded run either); and
// liveness, when the time limit cut clients off.
func (b *realBarrier) violations(ctx context.Context, admin zkapi.Conn, dir string, stopped error) []check.Violation {
	var vs []check.Violation
	b.holdsForReport()
	if b.single {
		removed := b.removed
		if removed == 0 {
			removed = -1
		}
		vs = checkers.BarrierWaits(b.waits, removed)
	} else {
		h := b.checked()
		vs = append(checkers.BarrierEnters(h, b.rc.workload.Clients), checkers.BarrierLeaves(h)...)
	}
	vs = append(vs, b.liveness(stopped)...)
	if stopped != nil {
		b.count("note: orphans unjudged: the run ended with clients inside or waiting")
		return vs
	}
	var left []string
	if !b.single {
		left = b.leftover(ctx, admin, dir)
	}
	return append(vs, checkers.Orphans(dir, left)...)
}

// liveness is the simulator's deadlock on a real run: clients the time
// limit found waiting in their calls, with nothing moved (no call of
// the barrier's made or returned) for realLiveBounds.span after the last
// move and after every fault settled (a session timeout after its
// effect ended). Excused, as the simulator excuses them (harness's
// barrier workload): fewer members waiting in Enter than the barrier's
// size, the others crashed or dropped out; waiters on a single barrier
// that was never lowered. A member waiting in Leave, or every member
// waiting in Enter, is a deadlock. Too short a run says so in a note.
func (b *realBarrier) liveness(stopped error) []check.Violation {
	if !errors.Is(stopped, context.DeadlineExceeded) || len(b.stuck) == 0 {
		return nil
	}
	end, quiet := b.cutAt, int64(0)
	if n := b.stepAt(end); n > 0 {
		quiet = b.times[n-1]
	}
	for _, w := range b.faultSpans() {
		quiet = max(quiet, satAdd(w.to, int64(realLiveBounds.settle)))
	}
	if end-quiet < int64(realLiveBounds.span) {
		b.count(fmt.Sprintf("note: liveness unjudged: %d client(s) waited when -time came, within %v of the last move or %v of the last fault",
			len(b.stuck), realLiveBounds.span, realLiveBounds.settle+realLiveBounds.span))
		return nil
	}
	if why, ok := b.excused(); ok {
		b.count("note: liveness: " + why)
		return nil
	}
	return []check.Violation{b.deadlock(quiet, end)}
}

// faultSpans are the faults' own spans, the run's expiries among them.
func (b *realBarrier) faultSpans() []window {
	var ws []window
	if b.nem != nil {
		ws = faultWindows(b.nem.Injections(), b.nemesisAt)
	}
	for _, l := range b.losses {
		ws = append(ws, window{l.from, l.to})
	}
	return ws
}

// excused says why the clients left waiting are no deadlock, if they
// are not: see liveness.
func (b *realBarrier) excused() (string, bool) {
	enter := 0
	for _, s := range b.stuck {
		switch {
		case s.in == "Enter":
			enter++
		case s.in == "Wait" && !b.lowered:
		default:
			return "", false
		}
	}
	n := b.rc.workload.Clients
	switch {
	case b.single:
		return "waiters on a single barrier that was never lowered (its controller crashed or failed)", true
	case enter < n:
		return fmt.Sprintf("%d of %d members waited in Enter at the end; the others crashed or dropped out", enter, n), true
	}
	return "", false
}

// deadlock words the clients left waiting as the simulator's deadlock.
func (b *realBarrier) deadlock(from, to int64) check.Violation {
	stuck := append([]stuckCall(nil), b.stuck...)
	sort.SliceStable(stuck, func(i, j int) bool { return stuck[i].client < stuck[j].client })
	var who []string
	leave := false
	for _, s := range stuck {
		who = append(who, fmt.Sprintf("c%d waited in %s (since %s)", s.client+1, s.in, clockWords(s.since)))
		leave = leave || s.in != "Enter"
	}
	cause := fmt.Sprintf("all %d members waited in Enter, and a round of %d must form", len(stuck), b.rc.workload.Clients)
	if leave {
		cause = "nobody may hang in Leave (or Wait, once the barrier is lowered): a member passes once the rest of its round has left or lost its session"
	}
	return check.Violation{Class: check.Deadlock, Cause: cause,
		Detail: fmt.Sprintf("nothing moved from %s to %s (%s, no fault in flight or settling) while %s",
			clockWords(from), clockWords(to), time.Duration(to-from).Round(time.Millisecond), strings.Join(who, "; "))}
}

// checked is the visits as the checkers see them (see realBarrier):
// a member is out (Left) from its Leave call, its failed Enter, or the
// first moment a fault could have ended its session since it arrived,
// whichever came first; it is gone (Gone) from its Leave call, or its
// failed Enter if no fault could have left its node behind on a session
// still alive; otherwise it counts as arrived to the end.
func (b *realBarrier) checked() []checkers.Visit {
	wins := b.lossWindows()
	out := make([]checkers.Visit, len(b.visits))
	for k, v := range b.visits {
		cv := v.Visit
		loss := int64(-1)
		if at, ok := lossFrom(wins, v.Client, v.arriveAt); ok {
			loss = b.stepAt(at)
		}
		switch {
		case v.Entered >= 0:
			cv.Left, cv.Gone = checkers.EarliestStep(v.leaveCall, loss), v.leaveCall
		case v.failed >= 0:
			cv.Left, cv.Gone = checkers.EarliestStep(v.failed, loss), v.failed
			if loss >= 0 && loss <= v.failed {
				cv.Gone = -1 // its node may linger on a session given up
			}
		}
		out[k] = cv
	}
	return out
}

// lossFrom is the first moment at or after t at which a fault could end
// client's session.
func lossFrom(wins []lossWindow, client int, t int64) (int64, bool) {
	first, ok := int64(0), false
	for _, w := range wins {
		if (w.client >= 0 && w.client != client) || w.to < t {
			continue
		}
		if at := max(w.from, t); !ok || at < first {
			first, ok = at, true
		}
	}
	return first, ok
}

// lossWindows are the stretches in which a fault could end a session:
// each injection from lossMargin before its record until a session
// timeout after its effect ended (a member's return, a stall's end),
// and the run's own expiries.
func (b *realBarrier) lossWindows() []lossWindow {
	wins := append([]lossWindow(nil), b.losses...)
	if b.nem == nil {
		return wins
	}
	ins := b.nem.Injections()
	for _, w := range faultWindows(ins, b.nemesisAt) {
		wins = append(wins, lossWindow{client: -1, from: w.from - lossMargin, to: satAdd(w.to, int64(realSessionTimeout))})
	}
	narrow(ins, wins[len(b.losses):])
	return wins
}

// narrow gives each client fault's window its client: faultWindows
// lists the injections' windows in their order, each end of a member
// fault (Injection.Ends) folded into its member's window.
func narrow(ins []nemesis.Injection, wins []lossWindow) {
	k := 0
	for _, in := range ins {
		if in.Ends() {
			continue
		}
		if k < len(wins) {
			wins[k].client = in.Client
		}
		k++
	}
}

// satAdd is a+d, saturating at the largest int64 (a window open to the
// end).
func satAdd(a, d int64) int64 {
	if a > 1<<63-1-d {
		return 1<<63 - 1
	}
	return a + d
}

// holdsForReport gives the lock run's reports (realRun.realJSON, the
// HTML page) the visits that entered, as holds: a member inside the
// barrier from its entry to its Leave call.
func (b *realBarrier) holdsForReport() {
	for _, v := range b.visits {
		if v.Entered < 0 {
			continue
		}
		end := v.leaveCall
		if end < 0 {
			end = v.Entered
		}
		b.holds = append(b.holds, linearize.Hold{Client: v.Client, Lock: "barrier", Mode: linearize.Read, Call: v.Arrive, Start: v.Entered, End: end})
	}
}

// header says at once what the run does.
func (b *realBarrier) header(w io.Writer) {
	wl, what := b.rc.workload, fmt.Sprintf("%d clients x %d rounds", b.rc.workload.Clients, b.rc.workload.Acquisitions)
	checks := "barrier entry and exit (the simulator's checkers, on the order of the recorded calls and returns), orphans"
	if b.single {
		what, checks = fmt.Sprintf("%d clients (client 1 removes the barrier)", wl.Clients), "single-barrier waits (the simulator's checker)"
	}
	fmt.Fprintf(w, "%s run: %s on real servers %s, %s, faults %s\n",
		b.rc.cli.name(), b.rc.subject.Name(), strings.Join(b.rc.servers, ","), what, b.rc.real)
	fmt.Fprintf(w, "checked: %s, deadlock; not herd (a real server does not say which change woke whom); no schedule control\n\n", checks)
}

// report is the text report.
func (b *realBarrier) report(w io.Writer, elapsed time.Duration, vs []check.Violation, stopped error) {
	if stopped != nil {
		fmt.Fprintf(w, "  %-22s %v\n", "stopped early", stopped)
	}
	if b.single {
		passed := 0
		for _, wt := range b.waits {
			if wt.Return >= 0 {
				passed++
			}
		}
		fmt.Fprintf(w, "  %-22s %d of %d in %v\n", "waits passed", passed, len(b.waits), elapsed.Round(time.Millisecond))
	} else {
		entered, passed := 0, 0
		for _, v := range b.visits {
			entered += b2i(v.Entered >= 0)
			passed += b2i(v.Passed >= 0)
		}
		fmt.Fprintf(w, "  %-22s %d in %v\n", "enter calls", len(b.visits), elapsed.Round(time.Millisecond))
		fmt.Fprintf(w, "  %-22s %d entered, %d passed Leave\n", "visits", entered, passed)
	}
	fmt.Fprintf(w, "  %-22s %d of %d\n", "clients done", b.done, b.rc.workload.Clients)
	switch want := b.rc.expire; {
	case want > 0 && b.single:
		fmt.Fprintf(w, "  %-22s 0 of %d asked: the single barrier has no member inside\n", "expired while inside", want)
	case want > 0:
		fmt.Fprintf(w, "  %-22s %d of %d asked\n", "expired while inside", b.expired.Load(), want)
	}
	b.reportEnd(w, vs)
}

func b2i(ok bool) int {
	if ok {
		return 1
	}
	return 0
}
