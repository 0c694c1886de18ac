package simcli_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/simcli"
	"github.com/zksim/zksim/zoo"
)

// countingWriter counts its writes, and the empty ones apart.
type countingWriter struct {
	strings.Builder
	writes, empty int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	if len(p) == 0 {
		w.empty++
	}
	return w.Builder.Write(p)
}

// TestRun_NoWritePerSchedule: without -trace a run writes its report,
// not something for each schedule: an empty write to a file is still a
// system call, and one per schedule cost 5% of a run's CPU time.
func TestRun_NoWritePerSchedule(t *testing.T) {
	r := zoo.Mutex()
	cli := &simcli.CLI{Name: "mycheck", Recipes: []recipe.Lock{r}}
	var out countingWriter
	var errs strings.Builder
	const schedules = 200
	code := cli.Run([]string{"run", "-recipe", r.Name, "-schedules", strconv.Itoa(schedules), "-progress", "0", "-out", t.TempDir()}, &out, &errs)
	if code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, out.String(), errs.String())
	}
	if out.empty > 0 || out.writes >= schedules {
		t.Errorf("%d writes to stdout, %d of them empty, for %d schedules", out.writes, out.empty, schedules)
	}
}
