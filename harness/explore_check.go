package harness

import (
	"strings"
	"testing"

	"github.com/zksim/zksim/linearize"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/sim"
)

// CheckExhaustive explores every schedule of recipe's standard workload
// within b (see Explore): opts.Workload is run as given (default 5
// clients x 3 acquisitions: keep it small, 2 or 3 clients x 1), under
// opts.Config's fault budgets. It fails t with the first counterexample
// (with deepening, one with the fewest deviations), saved as a trace
// file and reported like CheckRecipe's, and logs what it covered. It
// returns the exploration for tests that assert on coverage.
func CheckExhaustive(t *testing.T, recipe lock.Recipe, opts CheckOptions, b sim.Bounds) *Exploration {
	t.Helper()
	w := opts.Workload
	w.Recipe = recipe
	res, err := Explore(t.Context(), opts.Config, w, b)
	if err != nil {
		t.Fatal(err)
	}
	if ce := res.Counterexample; ce != nil {
		var msg strings.Builder
		subject := failureSubject{what: recipe.Name, name: t.Name() + "-" + recipe.Name, dir: opts.ArtifactDir,
			replay: "harness.ReplayFile(t, %q, recipe)"}
		msg.WriteString(recipe.Name + ": systematic search: " + res.Coverage() + "\n\n")
		subject.writeCounterexample(&msg, linearize.Worst(ce.Report.Classes()), *ce)
		t.Fatal(msg.String())
	}
	t.Logf("%s: systematic search: %s", recipe.Name, res.Coverage())
	return res
}
