package simcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/internal/history"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
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
// returns tick in the order they happen (stamp), the orphans left in
// the barrier's directory, and the simulator's deadlock (liveness).
// Herd is not judged: a real server's notification does not say which
// change fired it, and porcupine's search (linearize.Herd) models a
// lock's queue, not a barrier's rounds.
//
// What a real run cannot know is when a session ended: the simulator
// sees the server expire it, a real client learns it late. The checkers
// are given bounds that cannot make a correct barrier fail (checked):
// a member counts as left from the first moment a fault could have
// ended its session (lossWindows), and as arrived until its node is
// surely gone.
type realBarrier struct {
	*realRun
	recipe recipe.Barrier
	single bool
	dir    string // the barrier's directory, under the run's root

	bmu     sync.Mutex
	times   []int64 // the history clock at each step (steps from 1)
	visits  []realVisit
	waits   []checkers.SingleWait
	removed int64        // step of the first Remove call; 0: none yet
	lowered bool         // a Remove returned
	losses  []lossWindow // the run's own expiries
	done    int          // clients that went through every round
	stuck   []stuckCall  // the calls the time limit cut short
	cutAt   int64        // the run's deadline, on the history clock
}

// stuckCall is a call a client was still waiting in when the time limit
// came: Enter, Leave, Wait or Remove, since when (the history clock).
type stuckCall struct {
	client int
	in     string
	since  int64
}

// realVisit is one Enter call as the run records it, on the run's steps
// (-1: did not happen), with the history clock's times of its call and
// end, for placing the faults.
type realVisit struct {
	checkers.Visit
	failed, leaveCall int64
	arriveAt, endAt   int64 // endAt: Leave called, Enter failed, or -1
}

// stamp ticks the run's clock: one step, and the history clock's time
// noted with it.
func (b *realBarrier) stamp() (step, at int64) {
	b.bmu.Lock()
	defer b.bmu.Unlock()
	at = b.history.now()
	b.times = append(b.times, at)
	return int64(len(b.times)), at
}

// stepAt is the last step stamped at or before the history clock's t; 0
// if none.
func (b *realBarrier) stepAt(t int64) int64 {
	return int64(sort.Search(len(b.times), func(i int) bool { return b.times[i] > t }))
}

// run runs the barrier workload (runWork) and returns the exit code.
func (b *realBarrier) run(ctx context.Context, stdout, stderr io.Writer) int {
	return b.runWork(ctx, stdout, stderr, b)
}

// prepare creates the run's root, and raises the single barrier before
// any client starts, as the simulator does, so that no Wait may pass
// before the controller's Remove. It notes the deadline of ctx, the
// run's: the time limit cuts the clients short there. The deadline
// itself, not the moment some goroutine saw it pass: a call cut short
// is stamped as it returns, and a stamp taken before that moment would
// count as a move inside the quiet span a deadlock is judged by.
func (b *realBarrier) prepare(ctx context.Context, admin zkapi.Conn, root string) error {
	if d, ok := ctx.Deadline(); ok {
		b.cutAt = int64(d.Sub(b.history.start))
	}
	b.dir = root + "/barrier"
	paths := []string{root}
	if b.single {
		paths = append(paths, b.dir)
	}
	for _, p := range paths {
		if _, err := admin.Create(ctx, p, []byte("0"), zkapi.Persistent); err != nil {
			return fmt.Errorf("create %s: %w", p, err)
		}
	}
	return nil
}

// judge is the barrier checkers' verdict (violations).
func (b *realBarrier) judge(ctx context.Context, admin zkapi.Conn, stopped error) []check.Violation {
	return b.violations(ctx, admin, b.dir, stopped)
}

// client is one client's program, its calls recorded in the history: a
// member's rounds, or the single barrier's controller (client 1) or a
// waiter.
func (b *realBarrier) client(ctx context.Context, i int, c zkapi.Conn) {
	c, dir := b.history.rec.Conn(i, c), b.dir
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
	k, since := b.open(i)
	m, err := b.recipe.Enter(ctx, c, dir, id, b.rc.workload.Clients)
	step, at := b.stamp()
	b.bmu.Lock()
	v := &b.visits[k]
	if err != nil {
		v.failed, v.endAt = step, at
	} else {
		v.Entered = step
	}
	b.bmu.Unlock()
	if err != nil {
		b.history.rec.Mark(i, history.GaveUp, false, c.Session())
		b.count("enter: " + errWord(err))
		b.cutShort(ctx, i, "Enter", since)
		return nil
	}
	b.history.rec.Mark(i, history.Held, false, c.Session())
	return m
}

// cutShort notes client i's call in, made at since, as one the time
// limit cut short (its ctx ended by the deadline, not by a crash).
func (b *realBarrier) cutShort(ctx context.Context, i int, in string, since int64) {
	if ctx.Err() == nil || !errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		return
	}
	b.bmu.Lock()
	defer b.bmu.Unlock()
	b.stuck = append(b.stuck, stuckCall{client: i, in: in, since: since})
}

// open records a visit's arrival and returns its index and time.
func (b *realBarrier) open(i int) (int, int64) {
	step, at := b.stamp()
	b.bmu.Lock()
	defer b.bmu.Unlock()
	b.visits = append(b.visits, realVisit{Visit: checkers.Visit{Client: i, Arrive: step, Entered: -1, Left: -1, Gone: -1, Passed: -1},
		failed: -1, leaveCall: -1, arriveAt: at, endAt: -1})
	return len(b.visits) - 1, at
}

// leave is one Leave call, recorded.
func (b *realBarrier) leave(ctx context.Context, i int, c zkapi.Conn, m recipe.Leaver) {
	b.history.rec.Mark(i, history.Release, false, c.Session())
	call, since := b.stamp()
	b.bmu.Lock()
	k := b.inside(i)
	b.visits[k].leaveCall, b.visits[k].endAt = call, since
	b.bmu.Unlock()
	err := m.Leave(ctx)
	passed, _ := b.stamp()
	b.history.rec.Mark(i, history.Released, false, c.Session())
	if err != nil {
		b.count("leave: " + errWord(err))
		b.cutShort(ctx, i, "Leave", since)
		return
	}
	b.bmu.Lock()
	b.visits[k].Passed = passed
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
	if !b.expireTurn() {
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
	step, since := b.stamp()
	b.bmu.Lock()
	if b.removed == 0 {
		b.removed = step
	}
	b.bmu.Unlock()
	err := s.Remove(ctx, c, dir)
	if err != nil {
		b.count("remove: " + zkapi.Name(err))
		b.cutShort(ctx, 0, "Remove", since)
	}
	b.bmu.Lock()
	b.lowered = err == nil
	b.done++
	b.bmu.Unlock()
}

// waiter waits on the single barrier.
func (b *realBarrier) waiter(ctx context.Context, i int, c zkapi.Conn, dir string, rnd *rand.Rand) {
	arrive(rnd)
	call, since := b.stamp()
	err := b.recipe.Single.Wait(ctx, c, dir)
	ret, _ := b.stamp()
	if err != nil {
		b.count("wait: " + errWord(err))
		b.cutShort(ctx, i, "Wait", since)
		ret = -1
	}
	b.bmu.Lock()
	defer b.bmu.Unlock()
	b.waits = append(b.waits, checkers.SingleWait{Client: i, Call: call, Return: ret})
	b.done++
}
