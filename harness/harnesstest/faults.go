package harnesstest

import (
	"cmp"

	"github.com/zksim/zksim/internal/simhook"
	"github.com/zksim/zksim/sim"
)

// faultsOr is f as an entry point whose default is def reads it: no
// faults if f.None; def if f asks nothing (keeping f's Percent and
// PauseTicks when set, as `-faults percent=50` keeps the default kinds);
// otherwise exactly f's budgets, at def's Percent when f leaves it at 0
// (a budget at 0% would never be drawn on).
func faultsOr(f, def sim.Faults) sim.Faults {
	switch {
	case f.None:
		return sim.Faults{None: true, PauseTicks: f.PauseTicks}
	case !asksFaults(f):
		def.Percent = cmp.Or(f.Percent, def.Percent)
		def.PauseTicks = cmp.Or(f.PauseTicks, def.PauseTicks)
		return def
	}
	f.Percent = cmp.Or(f.Percent, def.Percent)
	return f
}

// asksFaults reports whether f says anything about which faults to
// inject: a budget, or None. A Faults that asks nothing is the zero
// value, up to Percent and PauseTicks, which tune faults without
// choosing them.
func asksFaults(f sim.Faults) bool {
	if f.None {
		return true
	}
	for _, k := range simhook.FaultKinds() {
		if *k.Budget(&f) > 0 {
			return true
		}
	}
	return false
}
