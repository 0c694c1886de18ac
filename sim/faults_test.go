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

// An entry point reads a fault budget with Or: nothing asked is the
// default (its Percent and PauseTicks kept if set), None is no faults,
// and budgets are exactly those asked, at the default rate if Percent
// is 0. The defaults hold every legal kind and no illegal one.
func TestFaults_Or(t *testing.T) {
	def := sim.DefaultFaults()
	cases := []struct {
		name      string
		asked     sim.Faults
		want      sim.Faults
		wantAsked bool
	}{
		{"zero", sim.Faults{}, def, false},
		{"percent only", sim.Faults{Percent: 50, PauseTicks: 9}, func() sim.Faults { f := def; f.Percent, f.PauseTicks = 50, 9; return f }(), false},
		{"none", sim.Faults{None: true, LoseReply: 3}, sim.Faults{None: true}, true},
		{"some budgets", sim.Faults{LoseReply: 1}, sim.Faults{LoseReply: 1, Percent: 10}, true},
		{"budgets and rate", sim.Faults{Crash: 2, Percent: 30}, sim.Faults{Crash: 2, Percent: 30}, true},
	}
	for _, c := range cases {
		if got := c.asked.Or(def); got != c.want || c.asked.Asked() != c.wantAsked {
			t.Errorf("%s: Or = %+v (asked %v), want %+v (asked %v)", c.name, got, c.asked.Asked(), c.want, c.wantAsked)
		}
	}
	for _, f := range []sim.Faults{sim.DefaultFaults(), sim.OneOfEach()} {
		for _, k := range sim.FaultKinds() {
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
