package harness_test

import (
	"context"
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/longtest"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// classesOver runs w on seeds 1..n under every fault and counts the
// schedules showing each class.
func classesOver(t *testing.T, w harness.Subject, n int) map[check.Class]int {
	t.Helper()
	found := map[check.Class]int{}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		rep, err := harness.Run(sim.Config{Faults: allFaults, Server: fakezkFollowers(seed), NoTrace: true}, sim.NewSeeded(seed), w)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range rep.Classes() {
			found[c]++
		}
	}
	return found
}

// The semaphore of 2 leases holds under every fault: at most two hold at
// once, no herd, no write after a lease was lost, nothing left behind.
// 1,000 schedules; TestWorkload_SemaphoreOfTwoLong runs 3,000.
func TestWorkload_SemaphoreOfTwo(t *testing.T) { testSemaphoreOfTwo(t, 1000) }

// TestWorkload_SemaphoreOfTwo over 3,000 schedules: a long test (40 s of
// CPU under -race).
func TestWorkload_SemaphoreOfTwoLong(t *testing.T) {
	longtest.Skip(t)
	testSemaphoreOfTwo(t, 3000)
}

func testSemaphoreOfTwo(t *testing.T, schedules int) {
	w := harness.Lock(zoo.Semaphore(2), harness.Workload{TimeoutTicks: 12, TimeoutPercent: 50})
	if found := classesOver(t, w, schedules); len(found) > 0 {
		t.Fatalf("violations: %v", found)
	}
}

// The checkers count leases: the semaphore of 3 leases, said to have 2,
// is caught holding three at once.
func TestWorkload_MoreLeasesThanN(t *testing.T) {
	r := zoo.Semaphore(3)
	r.Leases = 2
	found := classesOver(t, harness.Lock(r, harness.Workload{}), 50)
	if found[check.MaxLeases] == 0 {
		t.Fatalf("three at once not caught: %v", found)
	}
	if found[check.MutualExclusion] > 0 || found[check.Fencing] > 0 {
		t.Fatalf("a semaphore judged as a lock: %v", found)
	}
}

// Unfenced writes from holders whose session expired while they paused
// are caught by the lease fencing check (tokens of concurrent holders are
// not ordered, so the lock's check would not apply), and fenced ones are
// refused.
func TestWorkload_SemaphoreLapsedWrite(t *testing.T) {
	s := harness.Workload{HoldTicks: 5, Unfenced: true}
	w := harness.Lock(zoo.Semaphore(2), s)
	found := classesOver(t, w, 300)
	if found[check.Fencing] == 0 {
		t.Fatalf("no write after a lost lease in 300 schedules: %v", found)
	}
	s.Unfenced = false
	w = harness.Lock(zoo.Semaphore(2), s)
	if found := classesOver(t, w, 300); found[check.Fencing] > 0 {
		t.Fatalf("fenced writes: %v", found)
	}
}

// A recipe without Leases is judged as before: a mutex.
func TestRecipe_MaxHolders(t *testing.T) {
	if n := zoo.Mutex().MaxHolders(); n != 1 {
		t.Fatalf("lock: %d", n)
	}
	if n := zoo.Semaphore(3).MaxHolders(); n != 3 {
		t.Fatalf("semaphore/3: %d", n)
	}
}

// The systematic search checks at most N holders after every step: the
// semaphore whose clients disagree on N is stopped by the Invariant at
// the step where a third client holds.
func TestExplore_LeasesInvariant(t *testing.T) {
	ex, _ := zoo.Lookup(zoo.NameSemMixedMax)
	w := harness.Lock(ex.Recipe, harness.Workload{Clients: 3, Acquisitions: 1})
	res, err := harness.Explore(context.Background(), sim.Config{Faults: exploreFaults}, w, sim.Bounds{Deviations: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Failure
	if f == nil || f.Invariant == nil || f.Invariant.Class != check.MaxLeases {
		t.Fatalf("no invariant violation: %s", res.Coverage())
	}
	if !strings.Contains(f.Invariant.Detail, "more than its 2 leases") {
		t.Fatalf("detail: %s", f.Invariant.Detail)
	}
}
