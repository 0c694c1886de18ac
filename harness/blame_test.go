package harness_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/counterexample"
	"github.com/zksim/zksim/zoo"
)

// replayRegress replays a saved regression trace and returns its report.
func replayRegress(t *testing.T, name string) *harness.Report {
	t.Helper()
	return replayFile(t, "testdata/regress/"+name)
}

// replayFile replays the trace file at path, under the recipe it names.
func replayFile(t *testing.T, path string) *harness.Report {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := harness.ParseTraceFile(string(text))
	if err != nil {
		t.Fatal(err)
	}
	r, ok := recipeByName(f.Recipe)
	if !ok {
		t.Fatalf("unknown recipe %q", f.Recipe)
	}
	rep, err := harness.Replay(f, harness.Lock(r, harness.Workload{}))
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// A deadlock names the node its waiter waits on and the node's owner, and
// blames the step that created the node and the step the waiter stopped
// in; an orphan names its creator, its session and what became of them,
// and blames the step that created it and the step its client ended.
func TestViolation_BlamesNodeAndOwner(t *testing.T) {
	for _, tc := range []struct {
		file   string
		class  check.Class
		detail string
		steps  []int
	}{
		{"deadlock-noguidretry.trace", "deadlock",
			"c3 waited for the watch on /locks/l/lock-c2_0-0000000000 (c2's node, its session 0x100000000000002, created at step 10)", []int{10, 65}},
		{"orphan-gozk.trace", "orphan",
			"c2 created ephemeral /locks/l/_c_fba7167914b53f4cbc74403c164718f9-lock-0000000000 at step 14 on session 0x100000000000002 and finished at step 16 with that session open; nothing will remove it", []int{14, 16}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			rep := replayRegress(t, tc.file)
			i := slices.IndexFunc(rep.Violations, func(v check.Violation) bool { return v.Class == tc.class })
			if i < 0 {
				t.Fatalf("no %s in %v", tc.class, rep.Violations)
			}
			v := rep.Violations[i]
			if !strings.Contains(v.Detail, tc.detail) {
				t.Errorf("detail %q\nwant it to contain %q", v.Detail, tc.detail)
			}
			if !slices.Equal(v.Steps, tc.steps) {
				t.Errorf("blamed steps %v, want %v", v.Steps, tc.steps)
			}
		})
	}
}

// A minimal counterexample shows only the faults its bug needs: the lost
// create's reply for the retry without a GUID, the abandoned session for
// the adopter of a dying session's node; no crash, pause or disconnect
// beside them.
func TestMinimize_DropsUnneededFaults(t *testing.T) {
	for _, tc := range []struct {
		name, fault string
	}{
		{zoo.NameNoGUIDRetry, "lose-reply"},
		{zoo.NameAdoptDying, "abandon"},
	} {
		ex, _ := zoo.Lookup(tc.name)
		ce, ok := counterexample.Minimize(zooWorkload(ex), zooConfigFor(ex), ex.Violation, 60, 0)
		if !ok {
			t.Fatalf("%s: no counterexample", tc.name)
		}
		faults := ce.Report.Result.Faults
		if got := fmt.Sprint(faults); got != "map["+tc.fault+":1]" {
			t.Errorf("%s: faults %v, want only %s=1", tc.name, faults, tc.fault)
		}
	}
}
