package sim_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/sim"
)

// TestFaultKinds_EveryFaultOnce: the table lists each fault event kind
// once, in Kind order, under the kind's own name, each with its own
// budget in Faults.
func TestFaultKinds_EveryFaultOnce(t *testing.T) {
	var want []sim.Kind
	for k := sim.Kind(0); !strings.HasPrefix(k.String(), "kind("); k++ {
		if k.IsFault() {
			want = append(want, k)
		}
	}
	var got []sim.Kind
	var f sim.Faults
	budgets := map[*int]string{}
	for _, k := range sim.FaultKinds() {
		got = append(got, k.Kind)
		if k.Name != k.Kind.String() || k.Doc == "" {
			t.Errorf("%v: name %q, doc %q", k.Kind, k.Name, k.Doc)
		}
		b := k.Budget(&f)
		if other, ok := budgets[b]; ok {
			t.Errorf("%s and %s share a budget", other, k.Name)
		}
		budgets[b] = k.Name
	}
	if !slices.Equal(got, want) {
		t.Errorf("FaultKinds lists %v, want the fault kinds %v", got, want)
	}
}
