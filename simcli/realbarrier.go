package simcli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/expire"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/internal/history"
	"github.com/zksim/zksim/internal/ztree"
	"github.com/zksim/zksim/linearize"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// barrierSubject is what a barrier recipe's Subject (harness.Barrier)
// tells of itself: its recipe and its settings.
type barrierSubject interface {
	BarrierSettings() (recipe.Barrier, harness.BarrierWorkload)
}

// isBarrier reports whether w is a barrier recipe's workload, which a
// real run takes (realBarrier).
func isBarrier(w harness.Subject) bool {
	_, ok := w.(barrierSubject)
	return ok
}

// runner is the real run's workload: the lock workload (realRun.run), or
// the barrier's when the Subject is a barrier recipe's.
func (r *realRun) runner() func(context.Context, io.Writer, io.Writer) int {
	b, ok := r.rc.subject.(barrierSubject)
	if !ok {
		return r.run
	}
	rb, w := b.BarrierSettings()
	return (&realBarrier{realRun: r, recipe: rb, single: w.Single}).run
}

// realBarrier is the barrier workload on real servers, the simulator's
// (harness.Barrier) in shape: -clients members, each going through
// -acquisitions rounds of the double barrier (enter, work, leave; an
// Enter that fails is tried again once, then the member drops out), or
// the single barrier raised before the run, which client 1 sets again,
// works under and removes while the others wait on it. Sessions, faults
// and reports are the lock run's (realRun); the verdicts are the
// simulator's own checkers (checkers.BarrierEnters, BarrierLeaves,
// BarrierWaits), fed times from one clock that every client's calls and
// returns tick in the order they happen (stamp), and the orphans left
// in the barrier's directory.
//
// What a real run cannot know is when a session ended: the simulator
// sees the server expire it, a real client learns it late. The checkers
// are given bounds that cannot make a correct barrier fail (visits):
// a member counts as left from the first moment a fault could have
// ended its session (lossWindows), and as arrived until its node is
// surely gone.
type realBarrier struct {
	*realRun
	recipe recipe.Barrier
	single bool

	bmu     sync.Mutex
	times   []int64 // the history clock at each step (steps from 1)
	visits  []realVisit
	waits   []checkers.SingleWait
	removed int64        // step of the first Remove call; 0: none yet
	losses  []lossWindow // the run's own expiries
	done    int          // clients that went through every round
}

// realVisit is one Enter call as the run records it, on the run's steps
// (-1: did not happen), with the history clock's times of its call and
// end, for placing the faults.
type realVisit struct {
	checkers.Visit
	failed, leaveCall int64
	arriveAt, endAt   int64 // endAt: Leave called, Enter failed, or -1
}

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

// stamp ticks the run's clock: one step, the history clock noted.
func (b *realBarrier) stamp() int64 {
	b.bmu.Lock()
	defer b.bmu.Unlock()
	b.times = append(b.times, b.history.now())
	return int64(len(b.times))
}

// stepAt is the last step stamped at or before the history clock's t; 0
// if none.
func (b *realBarrier) stepAt(t int64) int64 {
	return int64(sort.Search(len(b.times), func(i int) bool { return b.times[i] > t }))
}

// run runs the barrier workload, as realRun.run does the lock's, and
// returns the exit code.
func (b *realBarrier) run(ctx context.Context, stdout, stderr io.Writer) int {
	r, name := b.realRun, b.rc.cli.name()
	budget := cmp.Or(r.rc.budget, 2*time.Minute)
	jsonw := stdout
	if r.rc.asJSON {
		stdout = stderr
	}
	if err := r.rc.real.CheckMembers(r.members != nil); err != nil {
		fmt.Fprintf(stderr, "%s run: -faults: %v\n", name, err)
		return ExitUsage
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	b.header(stdout)
	r.capture, r.history, r.errs = &expire.Capture{}, newRealHistory(), map[string]int{}
	dialVia := func(dialer zk.Dialer) (zkapi.Conn, error) {
		return gozk.DialContext(ctx, r.rc.servers, gozk.Config{SessionTimeout: realSessionTimeout, ConnectTimeout: 3 * time.Second, Dialer: dialer})
	}
	admin, err := dialVia(r.capture.Dial)
	if err != nil {
		fmt.Fprintf(stderr, "%s run: cannot reach %s: %v\n", name, strings.Join(r.rc.servers, ","), err)
		return ExitCouldNotRun
	}
	defer admin.Close()
	root := fmt.Sprintf("/zksim-run-%d", time.Now().UnixNano())
	dir := root + "/barrier"
	if err := b.prepare(ctx, admin, root, dir); err != nil {
		fmt.Fprintf(stderr, "%s run: %v\n", name, err)
		return ExitCouldNotRun
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ztree.DeleteTree(cctx, admin, root)
	}()
	start := time.Now()
	n := r.rc.workload.Clients
	cctx, stops := make([]context.Context, n), make([]context.CancelCauseFunc, n)
	for i := range n {
		cctx[i], stops[i] = context.WithCancelCause(ctx)
		defer stops[i](nil)
	}
	if r.nem, err = r.startNemesis(stops); err != nil {
		fmt.Fprintf(stderr, "%s run: %v\n", name, err)
		return ExitCouldNotRun
	}
	defer r.nem.Close()
	conns := make([]zkapi.Conn, n)
	for i := range conns {
		c, err := dialVia(r.nem.Dialer(i, r.capture.Dial))
		if err != nil {
			fmt.Fprintf(stderr, "%s run: %v\n", name, err)
			return ExitCouldNotRun
		}
		defer c.Close()
		conns[i] = r.history.rec.Conn(i, c)
	}
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Go(func() {
			defer context.AfterFunc(cctx[i], func() { crashClose(cctx[i], c) })()
			b.client(cctx[i], i, c, dir)
		})
	}
	wg.Wait()
	// Some clients were stopped by the time limit or Ctrl-C (the limit
	// may pass later, while a member restarts: the clients were done).
	stopped := context.Cause(ctx)
	r.nem.Stop()
	r.nem.EndCrashed(context.WithoutCancel(ctx))
	vs := b.violations(context.WithoutCancel(ctx), admin, dir, stopped != nil)
	elapsed := time.Since(start)
	b.report(stdout, elapsed, vs, stopped)
	if err := r.writeReports(jsonw, stdout, elapsed, vs, stopped); err != nil {
		fmt.Fprintf(stderr, "%s run: %v\n", name, err)
		if len(vs) == 0 {
			return ExitCouldNotRun
		}
	}
	switch {
	case len(vs) > 0:
		return ExitViolation
	case errors.Is(stopped, errInterrupted):
		return ExitInterrupted
	}
	return ExitOK
}

// prepare creates the run's root, and raises the single barrier before
// any client starts, as the simulator does, so that no Wait may pass
// before the controller's Remove.
func (b *realBarrier) prepare(ctx context.Context, admin zkapi.Conn, root, dir string) error {
	paths := []string{root}
	if b.single {
		paths = append(paths, dir)
	}
	for _, p := range paths {
		if _, err := admin.Create(ctx, p, []byte("0"), zkapi.Persistent); err != nil {
			return fmt.Errorf("create %s: %w", p, err)
		}
	}
	return nil
}

// client is one client's program: a member's rounds, or the single
// barrier's controller (client 1) or a waiter.
func (b *realBarrier) client(ctx context.Context, i int, c zkapi.Conn, dir string) {
	rnd := rand.New(rand.NewPCG(b.rc.plan.seed, uint64(i)))
	switch {
	case !b.single:
		b.member(ctx, i, c, dir, rnd)
	case i == 0:
		b.controller(ctx, c, dir)
	default:
		b.waiter(ctx, i, c, dir, rnd)
	}
}

// realAttempts is the Enter calls a round before a member drops out,
// the simulator's default.
const realAttempts = 2

// member goes through the rounds of the double barrier.
func (b *realBarrier) member(ctx context.Context, i int, c zkapi.Conn, dir string, rnd *rand.Rand) {
	for round := range b.rc.workload.Acquisitions {
		var m recipe.Leaver
		for a := 0; a < realAttempts && m == nil && ctx.Err() == nil; a++ {
			m = b.enter(ctx, i, c, dir, fmt.Sprintf("c%d_%d", i+1, round*realAttempts+a+1), rnd)
		}
		if m == nil {
			return // dropped out, crashed, or the run is over
		}
		b.maybeExpire(ctx, i)
		work(rnd)
		b.leave(ctx, i, c, m)
	}
	b.bmu.Lock()
	b.done++
	b.bmu.Unlock()
}

// work is a member's time inside: 1 to 20 ms, drawn from the client's
// seeded source, so that members leave apart.
func work(rnd *rand.Rand) { time.Sleep(time.Duration(1+rnd.IntN(20)) * time.Millisecond) }

// arrive makes one Enter call (or single-barrier wait) in two late, by
// 1 to 100 ms, so that members arrive apart, as the simulator's late
// arrivals do: on a real ensemble a create takes tens of milliseconds,
// and members that call Enter closer together than that count as
// arrived together (from their calls), whatever their nodes' order.
func arrive(rnd *rand.Rand) {
	if rnd.IntN(2) == 0 {
		time.Sleep(time.Duration(1+rnd.IntN(100)) * time.Millisecond)
	}
}

// enter is one Enter call, recorded.
func (b *realBarrier) enter(ctx context.Context, i int, c zkapi.Conn, dir, id string, rnd *rand.Rand) recipe.Leaver {
	arrive(rnd)
	b.history.rec.Mark(i, history.Acquire, false, c.Session())
	k := b.open(i)
	m, err := b.recipe.Enter(ctx, c, dir, id, b.rc.workload.Clients)
	at := b.stamp()
	b.bmu.Lock()
	v := &b.visits[k]
	if err != nil {
		v.failed, v.endAt = at, b.times[at-1]
	} else {
		v.Entered = at
	}
	b.bmu.Unlock()
	if err != nil {
		b.history.rec.Mark(i, history.GaveUp, false, c.Session())
		b.count("enter: " + errName(err))
		return nil
	}
	b.history.rec.Mark(i, history.Held, false, c.Session())
	return m
}

// open records a visit's arrival and returns its index.
func (b *realBarrier) open(i int) int {
	at := b.stamp()
	b.bmu.Lock()
	defer b.bmu.Unlock()
	b.visits = append(b.visits, realVisit{Visit: checkers.Visit{Client: i, Arrive: at, Entered: -1, Left: -1, Gone: -1, Passed: -1},
		failed: -1, leaveCall: -1, arriveAt: b.times[at-1], endAt: -1})
	return len(b.visits) - 1
}

// leave is one Leave call, recorded.
func (b *realBarrier) leave(ctx context.Context, i int, c zkapi.Conn, m recipe.Leaver) {
	b.history.rec.Mark(i, history.Release, false, c.Session())
	at := b.stamp()
	b.bmu.Lock()
	k := b.inside(i)
	b.visits[k].leaveCall, b.visits[k].endAt = at, b.times[at-1]
	b.bmu.Unlock()
	err := m.Leave(ctx)
	at = b.stamp()
	b.history.rec.Mark(i, history.Released, false, c.Session())
	if err != nil {
		b.count("leave: " + errName(err))
		return
	}
	b.bmu.Lock()
	b.visits[k].Passed = at
	b.bmu.Unlock()
}

// inside is the index of client i's visit that entered and has not
// called Leave; b.bmu held.
func (b *realBarrier) inside(i int) int {
	for k := len(b.visits) - 1; k >= 0; k-- {
		if v := b.visits[k]; v.Client == i && v.Entered >= 0 && v.leaveCall < 0 {
			return k
		}
	}
	panic("realBarrier: Leave without a visit inside")
}

// maybeExpire expires the session of a member that has just entered,
// for -faults expire=N: one visit in every clients x rounds / N, from
// the first, until N sessions have expired. Its loss window opens
// before the expiry is asked.
func (b *realBarrier) maybeExpire(ctx context.Context, i int) {
	want := int64(b.rc.expire)
	if want == 0 {
		return
	}
	step := max(1, int64(b.rc.workload.Clients*b.rc.workload.Acquisitions)/want)
	if (b.holdSeq.Add(1)-1)%step != 0 || b.expired.Load() >= want {
		return
	}
	from := b.history.now()
	if err := b.nem.Expire(ctx, i, " while inside the barrier"); err != nil {
		b.count("expire failed: " + err.Error())
		return
	}
	b.bmu.Lock()
	b.losses = append(b.losses, lossWindow{client: i, from: from, to: b.history.now()})
	b.bmu.Unlock()
	b.expired.Add(1)
}

// controller sets the single barrier again (a no-op that must not
// fail), works and removes it.
func (b *realBarrier) controller(ctx context.Context, c zkapi.Conn, dir string) {
	s := b.recipe.Single
	if err := s.Set(ctx, c, dir); err != nil {
		b.count("set: " + zkapi.Name(err))
	}
	time.Sleep(2 * time.Millisecond)
	at := b.stamp()
	b.bmu.Lock()
	if b.removed == 0 {
		b.removed = at
	}
	b.bmu.Unlock()
	if err := s.Remove(ctx, c, dir); err != nil {
		b.count("remove: " + zkapi.Name(err))
	}
	b.bmu.Lock()
	b.done++
	b.bmu.Unlock()
}

// waiter waits on the single barrier.
func (b *realBarrier) waiter(ctx context.Context, i int, c zkapi.Conn, dir string, rnd *rand.Rand) {
	arrive(rnd)
	call := b.stamp()
	err := b.recipe.Single.Wait(ctx, c, dir)
	ret := b.stamp()
	if err != nil {
		b.count("wait: " + errName(err))
		ret = -1
	}
	b.bmu.Lock()
	defer b.bmu.Unlock()
	b.waits = append(b.waits, checkers.SingleWait{Client: i, Call: call, Return: ret})
	b.done++
}

// violations judges the run with the simulator's checkers, and the
// nodes left in dir once every client is done (orphans), unless some
// client was cut off by the time limit: its node, on a live session, is
// no orphan (the simulator judges none after a bounded run either).
func (b *realBarrier) violations(ctx context.Context, admin zkapi.Conn, dir string, cut bool) []check.Violation {
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
	if cut {
		b.count("note: orphans unjudged: the run ended with clients inside or waiting")
		return vs
	}
	var left []string
	if !b.single {
		left = b.leftover(ctx, admin, dir)
	}
	return append(vs, checkers.Orphans(dir, left)...)
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
			cv.Left, cv.Gone = earliestStep(v.leaveCall, loss), v.leaveCall
		case v.failed >= 0:
			cv.Left, cv.Gone = earliestStep(v.failed, loss), v.failed
			if loss >= 0 && loss <= v.failed {
				cv.Gone = -1 // its node may linger on a session given up
			}
		}
		out[k] = cv
	}
	return out
}

// earliestStep is the earlier of two steps, -1 (never) counting as
// latest.
func earliestStep(a, b int64) int64 {
	switch {
	case a < 0:
		return b
	case b < 0:
		return a
	}
	return min(a, b)
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
	for _, w := range faultWindows(b.nem.Injections(), b.nemesisAt) {
		wins = append(wins, lossWindow{client: -1, from: w.from - lossMargin, to: satAdd(w.to, int64(realSessionTimeout))})
	}
	b.narrow(wins[len(b.losses):])
	return wins
}

// narrow gives each client fault's window its client: faultWindows
// lists the injections' windows in their order, a member's return
// folded into its own.
func (b *realBarrier) narrow(wins []lossWindow) {
	k := 0
	for _, in := range b.nem.Injections() {
		if in.Member >= 0 && (strings.HasPrefix(in.What, "continued") || strings.HasPrefix(in.What, "restarted")) {
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
	fmt.Fprintf(w, "checked: %s; not herd or liveness (a real server does not say which change woke whom); no schedule control\n\n", checks)
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
	if want := b.rc.expire; want > 0 {
		fmt.Fprintf(w, "  %-22s %d of %d asked\n", "expired while inside", b.expired.Load(), want)
	}
	keys := make([]string, 0, len(b.errs))
	for k := range b.errs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  %-22s %d\n", k, b.errs[k])
	}
	b.reportFaults(w)
	fmt.Fprintf(w, "  %-22s %d\n", "violations", len(vs))
	for _, v := range vs {
		fmt.Fprintf(w, "    %v\n", v)
	}
}

// errName names a recipe's error: ZooKeeper's name, or the recipe's
// family's ("lost": the member's session ended).
func errName(err error) string {
	switch {
	case errors.Is(err, recipe.ErrLost):
		return "lost"
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return "stopped"
	}
	return zkapi.Name(err)
}

func b2i(ok bool) int {
	if ok {
		return 1
	}
	return 0
}
