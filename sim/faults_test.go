package sim_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/internal/simhook"
	"github.com/zksim/zksim/sim"
)

// TestFaultKinds_EveryFaultOnce: the table lists each fault event kind
// once, in Kind order, under the kind's own name, each with its own
// budget in Faults.
func TestFaultKinds_EveryFaultOnce(t *testing.T) {
	var want []string
	for k := sim.Kind(0); !strings.HasPrefix(k.String(), "kind("); k++ {
		if k.IsFault() {
			want = append(want, k.String())
		}
	}
	var got []string
	var f sim.Faults
	budgets := map[*int]string{}
	for _, k := range simhook.FaultKinds() {
		got = append(got, k.Name)
		if k.Doc == "" {
			t.Errorf("%s: no doc", k.Name)
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

// The defaults hold every legal kind and no illegal one.
func TestFaults_Defaults(t *testing.T) {
	for _, f := range []sim.Faults{sim.DefaultFaults(), sim.OneOfEach()} {
		for _, k := range simhook.FaultKinds() {
			if n := *k.Budget(&f); (n > 0) == k.Illegal {
				t.Errorf("%+v: %s has budget %d", f, k.Name, n)
			}
		}
	}
}

// A run asked for no faults by name injects none, whatever its budgets.
func TestFaults_NoneInARun(t *testing.T) {
	cfg := sim.Config{Faults: sim.Faults{None: true, Percent: 100, LoseRequest: 5, Crash: 5}}
	if f := cfg.WithDefaults().Faults; f.Asked() && (f.LoseRequest != 0 || f.Crash != 0) {
		t.Errorf("budgets kept: %+v", f)
	}
}
