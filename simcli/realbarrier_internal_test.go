package simcli

import (
	"testing"

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
