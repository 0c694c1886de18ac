package harnesstest

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zksim/zksim/barrier/zoo"
	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/sim"
)

// barrierFaults is every legal fault kind.
var barrierFaults = sim.Faults{Percent: 10, LoseRequest: 2, LoseReply: 2, Disconnect: 2, Crash: 1, Pause: 1, Reap: 1, Abandon: 1}

// CheckBarrier's search finds each broken barrier, and its report's
// decision list, shrunk, replays the violation, as does the trace file
// it saved.
func TestCheckBarrier_FindsTheZoo(t *testing.T) {
	var errs []string
	defer func() {
		for _, e := range errs {
			t.Error(e)
		}
	}()
	for _, ex := range zoo.Exhibits() {
		opts := BarrierOptions{Config: sim.Config{Faults: barrierFaults},
			Workload: harness.BarrierWorkload{Clients: ex.Clients, Rounds: ex.Rounds}}
		fail, _ := findBarrier(t, ex.Recipe, opts)
		if fail == nil {
			errs = append(errs, ex.Name+": nothing found")
			continue
		}
		out := fail.report(ex.Name, 1, artifacts{dir: t.TempDir(), name: t.Name()})
		m := regexp.MustCompile(`List: \[\]int\{([0-9 ]*)\}`).FindStringSubmatch(out)
		if !strings.Contains(out, string(fail.class)+": ") || m == nil {
			errs = append(errs, fmt.Sprintf("%s: report without its violation or its decisions:\n%s", ex.Name, out))
			continue
		}
		var d []int
		for _, f := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ',' || r == ' ' }) {
			n, _ := strconv.Atoi(f)
			d = append(d, n)
		}
		rep, err := harness.RunBarrier(fail.cfg, &sim.Decisions{List: d}, fail.w)
		if err != nil || !slices.Contains(rep.Classes(), fail.class) {
			errs = append(errs, fmt.Sprintf("%s: the reported decisions do not replay %s: %v %v\n%s", ex.Name, fail.class, err, rep.Classes(), out))
		}
		if err := replaySaved(out, ex, fail.class); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v\n%s", ex.Name, err, out))
		}
		t.Logf("%s: %s, %d decisions", ex.Name, fail.class, len(d))
	}
}

// replaySaved replays the trace file a report names, byte for byte, and
// says if it does not show class.
func replaySaved(out string, ex zoo.Exhibit, class check.Class) error {
	m := regexp.MustCompile(`(?m)^trace: +(\S+)$`).FindStringSubmatch(out)
	if m == nil {
		return errors.New("no trace file saved")
	}
	text, err := os.ReadFile(m[1])
	if err != nil {
		return err
	}
	f, err := harness.ParseTraceFile(string(text))
	if err != nil || f.Barrier == nil {
		return fmt.Errorf("%s: not a barrier trace: %v", m[1], err)
	}
	w := *f.Barrier
	w.Recipe = ex.Recipe
	rep, err := harness.Replay(f, w)
	if err != nil {
		return err
	}
	if !slices.Contains(rep.Classes(), class) {
		return fmt.Errorf("%s replays %v, not %s", m[1], rep.Classes(), class)
	}
	return nil
}
