package harness

import (
	"slices"
	"sort"

	"github.com/zksim/zksim/sim"
)

// Counterexample is a failing run: what ran and the decisions that drove
// it.
type Counterexample struct {
	Workload  Workload
	Config    sim.Config
	Decisions []int
	Report    *Report
	// Seed is the seed of the schedule whose decisions were shrunk to
	// Decisions (0: not known). The decisions, not the seed, replay it.
	Seed uint64
}

// shrinkBudget bounds the runs one shrink may make.
const shrinkBudget = 2000

// Minimize looks for a run of w that shows violation class, trying the
// smallest workloads first (fewer clients, then fewer acquisitions, up to
// w's), each with up to perSize seeds from config(seed), and shrinks the
// first one found (see ShrinkSeed). ok is false if none was found.
func Minimize(w Workload, config func(seed uint64) sim.Config, class string, perSize int) (ce Counterexample, ok bool) {
	w = w.withDefaults()
	for _, ws := range sizes(w) {
		for seed := uint64(1); seed <= uint64(perSize); seed++ {
			if ce, ok := ShrinkSeed(ws, config(seed), seed, class); ok {
				return ce, true
			}
		}
	}
	return Counterexample{}, false
}

// sizes lists w with every number of clients from 2 (or w's, if fewer)
// and of acquisitions from 1 up to w's, fewest client-acquisitions first,
// w last.
func sizes(w Workload) []Workload {
	var out []Workload
	for c := min(2, w.Clients); c <= w.Clients; c++ {
		for a := 1; a <= w.Acquisitions; a++ {
			ws := w
			ws.Clients, ws.Acquisitions = c, a
			out = append(out, ws)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].Clients*out[i].Acquisitions < out[j].Clients*out[j].Acquisitions
	})
	return out
}

// ShrinkSeed runs w under cfg with the choices of NewSeeded(seed) and, if
// the run shows violation class, shrinks its decisions (see Shrink) to a
// schedule that still shows it and returns that schedule run again with
// its trace. ok is false if the run does not show class.
func ShrinkSeed(w Workload, cfg sim.Config, seed uint64, class string) (ce Counterexample, ok bool) {
	return shrinkSeed(RunWorkload, w, cfg, seed, class)
}

func shrinkSeed(run runner, w Workload, cfg sim.Config, seed uint64, class string) (ce Counterexample, ok bool) {
	cfg.NoTrace = true // search fast; the result is run again, traced
	rec := &sim.Recorder{C: sim.NewSeeded(seed)}
	if rep, err := run(cfg, rec, w); err != nil || !shows(rep, class) {
		return Counterexample{}, false
	}
	d := sim.Shrink(rec.Decisions, func(d []int) bool {
		rep, _ := run(cfg, &sim.Decisions{List: d}, w)
		return shows(rep, class)
	}, shrinkBudget)
	cfg.NoTrace = false
	rep, _ := run(cfg, &sim.Decisions{List: d}, w)
	return Counterexample{Workload: w, Config: cfg, Decisions: d, Report: rep, Seed: seed}, true
}

// perSizeSeeds is how many seeds shrinkFinding tries at each workload
// size smaller than the one found.
const perSizeSeeds = 20

// shrinkFinding makes a finding's first schedule a minimal
// counterexample: it looks for the class at every smaller workload (a
// lock workload's fewer clients, then fewer acquisitions; programs have
// none) under the finding's configuration, perSizeSeeds seeds each, then
// shrinks the decisions of the first run found, or of the finding's own.
// ok is false if the finding's own schedule no longer shows the class:
// what runs is not deterministic.
func shrinkFinding(f finding, run runner, programs bool) (ce Counterexample, ok bool) {
	c := f.first
	if !programs {
		for _, ws := range sizes(c.workload) {
			if ws.Clients*ws.Acquisitions >= c.workload.Clients*c.workload.Acquisitions {
				break
			}
			for i := range uint64(perSizeSeeds) {
				if ce, ok := shrinkSeed(run, ws, c.config, c.seed+i, f.class); ok {
					return ce, true
				}
			}
		}
	}
	return shrinkSeed(run, c.workload, c.config, c.seed, f.class)
}

func shows(rep *Report, class string) bool {
	return rep != nil && slices.Contains(rep.Classes(), class)
}
