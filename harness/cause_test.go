package harness_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// Each saved counterexample's violation names its mechanism: which
// client, which session (given up, expired at step N), which node, which
// wake-up. The traces under testdata/cause are zoo exhibits' minimal
// counterexamples (counterexample.Minimize with zooWorkload and zooConfigFor, 40
// seeds) and one seeded run (ok-stale-wakeup-dirwatch: seed 55, 3
// clients x 2 acquisitions, the zoo's faults and abandon=2); the others
// are the regression traces. Three mutual-exclusion verdicts, three
// mechanisms.
func TestCause_NamesTheMechanism(t *testing.T) {
	for _, tc := range []struct {
		path  string
		class check.Class
		cause string
		root  int // the step of the chain's first Root link; 0: none
	}{
		{"testdata/cause/mutual-exclusion-adoptdying.trace", check.MutualExclusion,
			"c2 held /locks/l/lock-c2_0-0000000000 of session 0x100000000000002 after giving that session up at step 19; " +
				"session 0x100000000000002 expired at step 65, deleting it; c1, woken at step 67 by that deletion, acquired at step 69 " +
				"with /locks/l/lock-c1_0-0000000001", 19},
		{"testdata/cause/mutual-exclusion-deletefirstchild.trace", check.MutualExclusion,
			"c3 held /locks/l/lock-c3_1-0000000004 of session 0x100000000000003; c2 deleted it at step 98; " +
				"c2 acquired at step 103 with /locks/l/lock-c2_1-0000000005", 98},
		{"testdata/cause/mutual-exclusion-splitdash.trace", check.MutualExclusion,
			"c1 held /locks/l/lock-c1_0-0000000001 of session 0x100000000000001; c2 acquired at step 20 with " +
				"/locks/l/lock-c2_0-0000000000 while c1's /locks/l/lock-c1_0-0000000001 was still there", 0},
		{"testdata/cause/fencing-electunfenced.trace", check.Fencing,
			"c2 held from step 20 on session 0x100000000000002; c2 was paused at step 28, its session expired at step 42 " +
				"and c2 learned that at step 69; the resource took c2's token 14 at step 72 though c3's 18 came before it " +
				"at step 64: the write was not fenced", 28},
		{"testdata/regress/herd-dirwatch.trace", check.Herd,
			"c1's release of /locks/l/lock-c1_0-0000000000 at step 32 (zxid 13) woke c2 and c3; at most 1 could proceed, " +
				"so 1 woke for nothing; c3 waited again", 32},
		{"testdata/regress/deadlock-noguidretry.trace", check.Deadlock,
			"c3 waits on c2's /locks/l/lock-c2_0-0000000000 (session 0x100000000000002), created at step 10 by a create " +
				"whose reply was lost, so c2 never knew of it; c2 finished without deleting it, and its session is still open", 10},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			v := only(t, replayFile(t, tc.path).Violations, tc.class)
			if v.Cause != tc.cause {
				t.Errorf("cause:\n got: %s\nwant: %s", v.Cause, tc.cause)
			}
			root := 0
			if i := slices.IndexFunc(v.Chain, func(l check.Link) bool { return l.Root }); i >= 0 {
				root = v.Chain[i].Step
			}
			if root != tc.root {
				t.Errorf("root at step %d, want %d: %v", root, tc.root, v.Chain)
			}
			checkChain(t, v)
		})
	}
}

// A change that woke, beside the waiter that could proceed, a client
// whose session was replaced while it waited and whose node has gone is
// not a herd: the run is clean, and the stale wake-up is a note that says
// so. (testdata/cause/ok-stale-wakeup-adoptdying.trace: seed 384, 5
// clients x 3 acquisitions, deadline 12 ticks for 50%, the zoo's faults
// and abandon=1; zksim run -recipe zoo/adoptdying reported 102 such
// runs as herds, and none of the good recipes shows one.) A herd by
// design stays a herd: see herd-dirwatch above.
func TestCause_StaleWakeupIsANote(t *testing.T) {
	rep := replayFile(t, "testdata/cause/ok-stale-wakeup-adoptdying.trace")
	if !rep.OK() {
		t.Fatalf("a stale wake-up failed the run: %v", rep.Violations)
	}
	v := only(t, rep.Notes, check.StaleWakeup)
	want := "c5's release of /locks/l/lock-c5_1-0000000006 at step 157 woke c2 at step 160, which gave session " +
		"0x100000000000002 up at step 106 while acquiring and had no node left in the queue, beside the waiter that " +
		"could proceed: a wake-up for a queue place of a replaced session, not a herd"
	if v.Cause != want {
		t.Errorf("cause:\n got: %s\nwant: %s", v.Cause, want)
	}
	if !checkers.Note(check.StaleWakeup) || checkers.Note(check.Herd) {
		t.Error("stale-wakeup must be a note and herd a violation")
	}
	if i := slices.IndexFunc(v.Chain, func(l check.Link) bool { return l.Root }); i < 0 || v.Chain[i].Step != 106 {
		t.Errorf("the root is not the give-up at step 106: %v", v.Chain)
	}
	checkChain(t, v)
}

// A barrier's violation names the steps and the faults between them.
func TestCause_Barrier(t *testing.T) {
	for _, tc := range []struct {
		path, cause string
	}{
		{"testdata/barrier/barrier-leave-leaveearly.trace",
			"c1 passed Leave at step 39 while c2, inside since step 35, left only at step 40; no fault hit c1 and c2 " +
				"between steps 35 and 39"},
		{"testdata/barrier/barrier-wait-waitonerror.trace",
			"c2's Wait, called at step 0, returned at step 2 with the barrier still up: Remove was called only at step 5; " +
				"in between: lose-reply c2 exists /barriers/b watch at step 2"},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			text, err := os.ReadFile(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := harness.ParseTraceFile(string(text))
			if err != nil {
				t.Fatal(err)
			}
			ex, _ := zoo.Lookup(f.Recipe)
			rep, err := harness.Replay(f, harness.Barrier(ex.Barrier, harness.BarrierWorkload{}))
			if err != nil {
				t.Fatal(err)
			}
			v := only(t, rep.Violations, ex.Violation)
			if v.Cause != tc.cause {
				t.Errorf("cause:\n got: %s\nwant: %s", v.Cause, tc.cause)
			}
			checkChain(t, v)
		})
	}
}

// only is the one violation of class in vs.
func only(t *testing.T, vs []check.Violation, class check.Class) check.Violation {
	t.Helper()
	var out []check.Violation
	for _, v := range vs {
		if v.Class == class {
			out = append(out, v)
		}
	}
	if len(out) != 1 {
		t.Fatalf("want one %s, got %v", class, vs)
	}
	return out[0]
}

// checkChain: a cause's chain is in step order, every link says what
// happened, and the violation's one line shows the cause.
func checkChain(t *testing.T, v check.Violation) {
	t.Helper()
	if len(v.Chain) < 2 {
		t.Errorf("chain of %d links: %v", len(v.Chain), v.Chain)
	}
	for i, l := range v.Chain {
		if l.What == "" || l.Step <= 0 && i > 0 || i > 0 && l.Step < v.Chain[i-1].Step {
			t.Errorf("link %d out of order or empty: %v", i, v.Chain)
		}
	}
	if s := v.String(); s != string(v.Class)+": "+v.Detail+"; cause: "+v.Cause {
		t.Errorf("String() = %q", s)
	}
}

// A run's own verdicts, for programs with no workload: a client error
// and no progress name the clients' last steps.
func TestCause_ExplainVerdicts(t *testing.T) {
	res := &sim.Result{Trace: []string{
		"    1 t0   send c1 create /a \"\" persistent -> z=7 OK path=/a",
		"    2 t0   recv c1 reply",
		"    3 t0   send c2 get /a -> z=7 OK data=\"\"",
	}, Errors: []error{errors.New("boom"), nil}}
	vs := res.Verdicts()
	harness.ExplainVerdicts(res, vs)
	v := only(t, vs, check.ClientError)
	if want := `c1's program ended with that error after its last step, 2: recv c1 reply`; v.Cause != want {
		t.Errorf("cause %q, want %q", v.Cause, want)
	}
	res.Errors, res.Bounded, res.Steps, res.Waiting = nil, true, 3, []string{"c2"}
	vs = res.Verdicts()
	harness.ExplainVerdicts(res, vs)
	v = only(t, vs, check.NoProgress)
	if want := `still going at the step bound: c2's last step was 3, send c2 get /a -> z=7 OK data=""`; v.Cause != want {
		t.Errorf("cause %q, want %q", v.Cause, want)
	}
}
