package harness_test

import (
	"fmt"
	"hash/fnv"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// TestSchedules_Unchanged pins what a seed runs: for every good recipe,
// the double barrier and every zoo exhibit, a hash of the whole trace and
// verdict of a few seeds under the random walk and PCT, with and without a
// follower. A change to the scheduler, the Machine or a client that is
// meant to run faster must leave every hash as it is; a change that is
// meant to change schedules rewrites the file with -update, in a commit
// that says so. (A trace file replays a schedule by its choices, so a
// changed schedule is also a changed meaning of every saved seed.)
func TestSchedules_Unchanged(t *testing.T) {
	const golden = "testdata/schedules.digest"
	type subject struct {
		name string
		w    harness.Subject
	}
	var subjects []subject
	for _, r := range []recipe.Lock{zoo.Mutex(), zoo.RWMutex(), zoo.ReentrantMutex(), zoo.MultiMutex(), zoo.Semaphore(2), zoo.Election()} {
		subjects = append(subjects,
			subject{r.Name, harness.Lock(r, harness.Workload{})},
			subject{r.Name + " reads,timeouts", harness.Lock(r, harness.Workload{ReadPercent: 50, TimeoutTicks: 30, TimeoutPercent: 50})})
	}
	subjects = append(subjects, subject{"double barrier", harness.Barrier(zoo.DoubleBarrier(), harness.BarrierWorkload{})})
	for _, e := range zoo.Exhibits() {
		if e.Recipe.Acquire != nil {
			subjects = append(subjects, subject{e.Name, harness.Lock(e.Recipe, harness.Workload{})})
		} else {
			subjects = append(subjects, subject{e.Name, harness.Barrier(e.Barrier, harness.BarrierWorkload{})})
		}
	}
	faults := sim.Faults{Percent: 10, LoseRequest: 2, LoseReply: 2, Disconnect: 2, Crash: 1, Pause: 1, Reap: 1}
	var got strings.Builder
	for _, s := range subjects {
		h := fnv.New64a()
		for seed := range uint64(10) {
			for _, pct := range []bool{false, true} {
				cfg := sim.Config{Faults: faults, PCT: pct, Server: fakezk.Config{Seed: seed, Followers: int(seed % 2)}}
				rep, err := harness.Run(cfg, sim.NewSeeded(seed), s.w)
				if err != nil {
					t.Fatal(s.name, err)
				}
				fmt.Fprintf(h, "%s%v|%v|%d\n", sim.TraceString(rep.Result.Trace), rep.Violations, rep.Result.Deadlock, rep.Result.Steps)
			}
		}
		fmt.Fprintf(&got, "%016x %s\n", h.Sum64(), s.name)
	}
	if *update {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), got.String()); d != "" {
		t.Errorf("schedules changed (-want +got); if that is meant, rewrite %s with -update:\n%s", golden, d)
	}
}
