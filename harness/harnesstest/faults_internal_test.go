package harnesstest

import (
	"testing"

	"github.com/zksim/zksim/sim"
)

// An entry point reads a fault budget with faultsOr: nothing asked is
// the default (its Percent and PauseTicks kept if set), None is no
// faults, and budgets are exactly those asked, at the default rate if
// Percent is 0.
func TestFaultsOr_Cases(t *testing.T) {
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
		if got := faultsOr(c.asked, def); got != c.want || asksFaults(c.asked) != c.wantAsked {
			t.Errorf("%s: faultsOr = %+v (asked %v), want %+v (asked %v)", c.name, got, asksFaults(c.asked), c.want, c.wantAsked)
		}
	}
}
