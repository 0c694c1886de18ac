package harnesstest

import (
	"sync"
	"testing"

	"github.com/zksim/zksim/sim"
)

// What a test's checks exercised: every schedule Check and
// CheckExhaustive run adds its coverage
// (sim.Coverage: which fault landed on which request kind, the session
// states, the watch events, what never happened) to its test's, and the
// test logs the sum when it ends, so that `go test -v` shows it, and a
// failure's output too. A green test says only as much as what it
// exercised.

// exercised is each running test's coverage so far. The checks of one
// test run in its goroutine, but tests run in parallel.
var exercised = struct {
	sync.Mutex
	by map[testing.TB]*sim.Coverage
}{by: map[testing.TB]*sim.Coverage{}}

// noteRun adds the coverage of a run to tb's (nothing if tb is not a
// test or benchmark, which could not log it at its end).
func noteRun(tb any, res *sim.Result) {
	if res != nil {
		noteCoverage(tb, &res.Coverage)
	}
}

// noteCoverage adds cov to tb's coverage; the first time, it has tb log
// the sum when it ends, if it runs with -v or has failed.
func noteCoverage(tb any, cov *sim.Coverage) {
	var t testing.TB
	switch tb := tb.(type) {
	case *testing.T:
		t = tb
	case *testing.B:
		t = tb
	default:
		return // a test double: its Cleanup may not be real
	}
	exercised.Lock()
	defer exercised.Unlock()
	sum, ok := exercised.by[t]
	if !ok {
		sum = &sim.Coverage{}
		exercised.by[t] = sum
		t.Cleanup(func() { logExercised(t) })
	}
	sum.Add(cov)
}

// logExercised logs and forgets t's coverage.
func logExercised(t testing.TB) {
	exercised.Lock()
	sum := exercised.by[t]
	delete(exercised.by, t)
	exercised.Unlock()
	if testing.Verbose() || t.Failed() {
		t.Log("harnesstest: the checks' schedules " + sum.String())
	}
}
