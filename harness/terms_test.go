package harness_test

import (
	"slices"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// The terms checker judges only recipes that say their token is a term
// (recipe.Lock.Terms): ElectCached's repeated terms are found with it,
// and the same runs are not judged on terms without it, as the locks'
// runs are not.
func TestWorkload_TermsOnlyWhereRecipeSays(t *testing.T) {
	ex, _ := zoo.Lookup(zoo.NameElectCached)
	r := ex.Recipe
	w := harness.Lock(r, harness.Workload{Clients: 3, Acquisitions: 2})
	rep, err := harness.Run(sim.Config{}, sim.NewSeeded(1), w)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rep.Classes(), check.SharedTerm) {
		t.Fatalf("with Terms: %v", rep.Violations)
	}
	r.Terms = false
	w = harness.Lock(r, harness.Workload{Clients: 3, Acquisitions: 2})
	rep, err = harness.Run(sim.Config{}, sim.NewSeeded(1), w)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(rep.Classes(), func(c check.Class) bool { return c == check.SharedTerm || c == check.TermOrder }) {
		t.Fatalf("without Terms: %v", rep.Violations)
	}
}
