package simcli

import (
	"context"
	"testing"
	"time"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/checkers"
)

// oneRound is a round of three members on the run's clock (step k at
// 10k ns): c1, c2, c3 arrive (steps 1-3) and enter (4-6); c2 and c3 call
// Leave (7, 8) and pass it (9, 10); c1 calls Leave only at step 11.
func oneRound(losses []lossWindow) *realBarrier {
	b := &realBarrier{realRun: &realRun{}, losses: losses}
	for k := range 11 {
		b.times = append(b.times, int64(10*(k+1)))
	}
	visit := func(c int, arrive, entered, leave, passed int64) realVisit {
		return realVisit{Visit: checkers.Visit{Client: c, Arrive: arrive, Entered: entered, Left: -1, Gone: -1, Passed: passed},
			failed: -1, leaveCall: leave, arriveAt: 10 * arrive, endAt: 10 * leave}
	}
	b.visits = []realVisit{visit(0, 1, 4, 11, -1), visit(1, 2, 5, 7, 9), visit(2, 3, 6, 8, 10)}
	return b
}

// A member whose session a fault could have ended while it was inside
// counts as left from the fault: the others passing Leave before its
// own Leave call is what ZooKeeper does (its node went with its
// session), not a violation; without the fault it is one.
func TestRealBarrier_LossCountsAsLeft(t *testing.T) {
	expired := oneRound([]lossWindow{{client: 0, from: 65, to: 70}})
	if vs := checkers.BarrierLeaves(expired.checked()); len(vs) != 0 {
		t.Errorf("c1's session may have ended at step 6, yet: %v", vs)
	}
	if h := expired.checked(); h[0].Left != 6 || h[0].Gone != 11 {
		t.Errorf("c1: left %d, gone %d; want 6 (the fault), 11 (its Leave call)", h[0].Left, h[0].Gone)
	}
	other := oneRound([]lossWindow{{client: 2, from: 65, to: 70}}) // c3's fault says nothing of c1
	if vs := checkers.BarrierLeaves(other.checked()); len(vs) != 1 {
		t.Errorf("c1 inside until step 11, c2 out at step 9: want a violation, got %v", vs)
	}
}

// A fault before a member arrived says nothing of the visit; a member
// fault (client -1) touches every client; an Enter that failed after a
// fault may leave its node on a session still alive, so it never counts
// as gone.
func TestRealBarrier_LossWindows(t *testing.T) {
	before := oneRound([]lossWindow{{client: 0, from: 1, to: 5}})
	if h := before.checked(); h[0].Left != 11 {
		t.Errorf("a fault over before c1 arrived: left %d, want 11", h[0].Left)
	}
	member := oneRound([]lossWindow{{client: -1, from: 85, to: 1 << 62}})
	if h := member.checked(); h[0].Left != 8 || h[1].Left != 7 {
		t.Errorf("a member fault at step 8: c1 left %d (want 8), c2 %d (want its Leave call, 7)", h[0].Left, h[1].Left)
	}
	failed := oneRound([]lossWindow{{client: 0, from: 35, to: 36}})
	failed.visits[0].Entered, failed.visits[0].failed, failed.visits[0].leaveCall = -1, 4, -1
	if h := failed.checked(); h[0].Gone != -1 || h[0].Left != 3 {
		t.Errorf("an Enter failed after a fault: left %d (want 3), gone %d (want -1: it may linger)", h[0].Left, h[0].Gone)
	}
	failed.losses = nil
	if h := failed.checked(); h[0].Gone != 4 {
		t.Errorf("an Enter failed without a fault: gone %d, want 4", h[0].Gone)
	}
}

// The time limit's moment is the run's deadline, known before a client
// starts. Noted when some goroutine saw the deadline pass, it came after
// the stamp of a call cut short that returned first, which then counted
// as a move: a deadlock left unjudged, the run green.
func TestRealBarrier_CutAtTheDeadline(t *testing.T) {
	srv, err := fakezk.NewServer(fakezk.Config{})
	if err != nil {
		t.Fatal(err)
	}
	admin, err := srv.Connect(fakezk.ConnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	b := &realBarrier{realRun: &realRun{history: newRealHistory()}}
	ctx, cancel := context.WithDeadline(context.Background(), b.history.start.Add(5*time.Second))
	defer cancel()
	if err := b.prepare(ctx, admin, "/run"); err != nil {
		t.Fatal(err)
	}
	if b.cutAt != int64(5*time.Second) {
		t.Errorf("cut at %v on the history clock, want the deadline, 5s", time.Duration(b.cutAt))
	}
}

// stuckAt is a run of n members the time limit ended at 10 s, with the
// calls given still waiting and the last move at 1 s.
func stuckAt(n int, stuck ...stuckCall) *realBarrier {
	b := &realBarrier{realRun: &realRun{rc: runConfig{workload: harness.Workload{Clients: n}}, errs: map[string]int{}}, stuck: stuck}
	b.times = []int64{int64(time.Second) / 2, int64(time.Second)}
	b.cutAt = int64(10 * time.Second)
	return b
}

// Clients left waiting with nothing moved for longer than the span are
// the simulator's deadlock, unless the barrier cannot help it (fewer
// members in Enter than its size); a fault settling inside the span, or
// a run ended otherwise than by its time limit, leaves it unjudged.
func TestRealBarrier_Liveness(t *testing.T) {
	enter := func(c int) stuckCall { return stuckCall{client: c, in: "Enter", since: int64(time.Second)} }
	leave := stuckCall{client: 0, in: "Leave", since: int64(time.Second)}
	for _, tc := range []struct {
		name    string
		b       *realBarrier
		stopped error
		want    bool
	}{
		{"one in Leave, one in Enter", stuckAt(2, leave, enter(1)), context.DeadlineExceeded, true},
		{"one in Leave, one in Enter of three", stuckAt(3, leave, enter(1)), context.DeadlineExceeded, true},
		{"every member in Enter", stuckAt(3, enter(0), enter(1), enter(2)), context.DeadlineExceeded, true},
		{"fewer in Enter than members", stuckAt(3, enter(0), enter(1)), context.DeadlineExceeded, false},
		{"stopped by Ctrl-C", stuckAt(2, leave, enter(1)), errInterrupted, false},
		{"an expiry settling", func() *realBarrier {
			b := stuckAt(2, leave, enter(1))
			b.losses = []lossWindow{{client: 0, from: int64(time.Second), to: int64(time.Second) + 1}} // settles at 5 s
			return b
		}(), context.DeadlineExceeded, false},
	} {
		vs := tc.b.liveness(tc.stopped)
		if got := len(vs) == 1 && vs[0].Class == check.Deadlock; got != tc.want || len(vs) > 1 {
			t.Errorf("%s: %v, want a deadlock %t", tc.name, vs, tc.want)
		}
	}
}
