package harness_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zoo"
)

var allFaults = sim.Faults{Percent: 10, LoseRequest: 2, LoseReply: 2, Disconnect: 2, Crash: 1, Pause: 1, Reap: 1}

// The good recipes pass 2,000 faulted schedules each: 1,000 random-walk
// ones here (with followers on odd seeds) and 1,000 PCT ones below.
func TestWorkload_GoodLockSeeded(t *testing.T) {
	for _, recipe := range []recipe.Lock{zoo.Mutex(), zoo.RWMutex()} {
		for seed := range uint64(1000) {
			cfg := sim.Config{Faults: allFaults, Server: fakezkFollowers(seed)}
			mustPassUntraced(t, cfg, seed, harness.Lock(recipe, harness.Workload{ReadPercent: 50, TimeoutTicks: 30}))
		}
	}
}

// mustPassUntraced runs seed's schedule of w without a trace (a third of
// the time under -race) and fails t with the traced run's violations if
// it shows any.
func mustPassUntraced(t *testing.T, cfg sim.Config, seed uint64, w harness.Subject) {
	t.Helper()
	cfg.NoTrace = true
	rep, err := harness.Run(cfg, sim.NewSeeded(seed), w)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		cfg.NoTrace = false
		rep, _ = harness.Run(cfg, sim.NewSeeded(seed), w)
		t.Fatalf("%s seed %d: %v\n%s", w.Name(), seed, rep.Violations, sim.TraceString(rep.Result.Trace))
	}
}

// Found by this harness (seed 7): a client paused before sending its create
// learns on reconnect that its session expired, and its queued create runs
// on the new session, as go-zookeeper does. The lock took the old session
// id for the node's owner, judged the lease lost, and left the node behind
// as an orphan. internal/queue.Join now asks the node for its owner when
// the session changed under the create.
func TestWorkload_Regression_SessionReplacedUnderCreate(t *testing.T) {
	rep, err := harness.Run(sim.Config{Faults: allFaults, Server: fakezkFollowers(7)}, sim.NewSeeded(7),
		harness.Lock(zoo.Mutex(), harness.Workload{ReadPercent: 50, TimeoutTicks: 30}))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("%v", rep.Violations)
	}
	if rep.Result.Faults["pause"] == 0 {
		t.Fatal("the schedule no longer pauses a client: the regression is not exercised")
	}
}

func TestWorkload_GoodLockPCT(t *testing.T) {
	for _, recipe := range []recipe.Lock{zoo.Mutex(), zoo.RWMutex()} {
		for seed := range uint64(1000) {
			cfg := sim.Config{PCT: true, Faults: allFaults, Server: fakezkFollowers(seed)}
			mustPassUntraced(t, cfg, seed, harness.Lock(recipe, harness.Workload{ReadPercent: 50, TimeoutTicks: 12, TimeoutPercent: 50}))
		}
	}
}

// A holder paused past its session timeout is the split brain that
// fencing exists for: writing unfenced, its stale token lands after the
// new holder's and the fencing checker reports it; writing through
// Lease.Fenced, ZooKeeper refuses the stale write.
func TestWorkload_PausedHolderSplitBrain(t *testing.T) {
	pauses := sim.Faults{Percent: 2, Pause: 1, PauseTicks: 10}
	found := 0
	for seed := range uint64(300) {
		unfenced, _ := harness.Run(sim.Config{Faults: pauses}, sim.NewSeeded(seed),
			harness.Lock(zoo.Mutex(), harness.Workload{HoldTicks: 3, Unfenced: true}))
		fenced, _ := harness.Run(sim.Config{Faults: pauses}, sim.NewSeeded(seed),
			harness.Lock(zoo.Mutex(), harness.Workload{HoldTicks: 3}))
		if !fenced.OK() {
			t.Fatalf("seed %d fenced: %v", seed, fenced.Violations)
		}
		if slices.Contains(unfenced.Classes(), "fencing") {
			found++
			if !strings.Contains(sim.TraceString(fenced.Result.Trace), "refused") {
				t.Errorf("seed %d: the same schedule fenced shows no refused stale write", seed)
			}
		}
	}
	if found == 0 {
		t.Fatal("no unfenced split brain in 300 paused schedules")
	}
	t.Logf("unfenced split brain in %d of 300 schedules; fenced writes refused in all", found)
}

// Bug scenario 8: the directory's sequence counter reaches 2^31-1 during
// the run, under both overflow behaviours. The good lock refuses loudly and
// never grants twice; go-zookeeper's Lock, which trusts the numbers, is
// caught holding twice.
func TestWorkload_SequenceOverflow(t *testing.T) {
	for _, ov := range []fakezk.Overflow{fakezk.OverflowPin, fakezk.OverflowWrap} {
		refused, broken := 0, 0
		for seed := range uint64(100) {
			cfg := sim.Config{Server: fakezk.Config{Seed: seed, Overflow: ov}}
			w := harness.Lock(zoo.Mutex(), harness.Workload{SequenceStart: math.MaxInt32 - 4})
			rep, _ := harness.Run(cfg, sim.NewSeeded(seed), w)
			if !rep.OK() {
				t.Fatalf("%v seed %d: %v", ov, seed, rep.Violations)
			}
			if strings.Contains(sim.TraceString(rep.Result.Trace), "sequence counter of the directory is at 2^31-1") {
				refused++
			}
			gozk, _ := zoo.Lookup(zoo.NameGoZKLock)
			w = harness.Lock(gozk.Recipe, harness.Workload{SequenceStart: math.MaxInt32 - 4})
			rep, _ = harness.Run(cfg, sim.NewSeeded(seed), w)
			if slices.Contains(rep.Classes(), "mutual-exclusion") {
				broken++
			}
		}
		if refused == 0 || broken == 0 {
			t.Fatalf("%v: the lock refused in %d runs, go-zookeeper's Lock broke in %d", ov, refused, broken)
		}
		t.Logf("%v: lock refused at the limit in %d/100 runs; go-zookeeper's Lock held twice in %d/100", ov, refused, broken)
	}
}

// The illegal mode breaks a client's own order: a reply overtakes the
// notifications queued before it (here with the directory-watching lock,
// whose clients have notifications queued often).
func TestSim_ReorderIsInjected(t *testing.T) {
	dirwatch, _ := zoo.Lookup(zoo.NameDirWatch)
	for seed := range uint64(200) {
		rep, _ := harness.Run(sim.Config{Faults: sim.Faults{Percent: 30, Reorder: 3}}, sim.NewSeeded(seed),
			harness.Lock(dirwatch.Recipe, harness.Workload{}))
		if rep.Result.Faults["reorder"] > 0 {
			if !strings.Contains(sim.TraceString(rep.Result.Trace), "reorder c") {
				t.Fatal("reorder counted but not traced")
			}
			return
		}
	}
	t.Fatal("no reorder injected in 200 schedules")
}

// A recipe that uses several lock directories is checked in each: a
// multi-lock that leaves a node behind in its second directory is an
// orphan there.
func TestWorkload_ChecksEveryDirOfAMultiLock(t *testing.T) {
	multi := zoo.MultiMutex()
	leaky := multi
	leaky.Acquire = func(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error) {
		held, err := multi.Acquire(ctx, conn, dir, id)
		if err != nil {
			return nil, err
		}
		_, err = conn.Create(ctx, dir+"-b/stray-"+id, nil, zkapi.Ephemeral)
		return held, err
	}
	for _, tc := range []struct {
		recipe recipe.Lock
		want   []check.Class
	}{{multi, nil}, {leaky, []check.Class{check.Orphan}}} {
		rep, err := harness.Run(sim.Config{}, sim.NewSeeded(1), harness.Lock(tc.recipe, harness.Workload{Clients: 2, Acquisitions: 1}))
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.Classes(); !slices.Equal(got, tc.want) {
			t.Errorf("%v: classes %v, want %v", tc.recipe.Name, got, tc.want)
		}
	}
}
