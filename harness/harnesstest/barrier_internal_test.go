package harnesstest

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zksim/zksim/barrier/zoo"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/sim"
)

// barrierFaults is every legal fault kind.
var barrierFaults = sim.Faults{Percent: 10, LoseRequest: 2, LoseReply: 2, Disconnect: 2, Crash: 1, Pause: 1, Reap: 1, Abandon: 1}

// CheckBarrier's search finds each broken barrier, and its report's
// decision list, shrunk, replays the violation.
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
		out := fail.report(ex.Name, 1)
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
		t.Logf("%s: %s, %d decisions", ex.Name, fail.class, len(d))
	}
}
