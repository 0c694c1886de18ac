package sim

import (
	"slices"
	"sort"
)

// Counterexample is a failing run: what ran and the decisions that drove
// it.
type Counterexample struct {
	Workload  Workload
	Config    Config
	Decisions []int
	Report    *Report
}

// shrinkBudget bounds the runs one shrink may make.
const shrinkBudget = 2000

// Minimize looks for a run of w that shows violation class, trying the
// smallest workloads first (fewer clients, then fewer acquisitions, up to
// w's), each with up to perSize seeds from config(seed), and shrinks the
// first one found (see ShrinkSeed). ok is false if none was found.
func Minimize(w Workload, config func(seed uint64) Config, class string, perSize int) (ce Counterexample, ok bool) {
	w = w.withDefaults()
	type size struct{ clients, acq int }
	var sizes []size
	for c := 2; c <= w.Clients; c++ {
		for a := 1; a <= w.Acquisitions; a++ {
			sizes = append(sizes, size{c, a})
		}
	}
	sort.SliceStable(sizes, func(i, j int) bool {
		return sizes[i].clients*sizes[i].acq < sizes[j].clients*sizes[j].acq
	})
	for _, sz := range sizes {
		ws := w
		ws.Clients, ws.Acquisitions = sz.clients, sz.acq
		for seed := uint64(1); seed <= uint64(perSize); seed++ {
			if ce, ok := ShrinkSeed(ws, config(seed), seed, class); ok {
				return ce, true
			}
		}
	}
	return Counterexample{}, false
}

// ShrinkSeed runs w under cfg with the choices of NewSeeded(seed) and, if
// the run shows violation class, shrinks its decisions (see Shrink) to a
// schedule that still shows it and returns that schedule run again with
// its trace. ok is false if the run does not show class.
func ShrinkSeed(w Workload, cfg Config, seed uint64, class string) (ce Counterexample, ok bool) {
	cfg.NoTrace = true // search fast; the result is run again, traced
	rec := &Recorder{C: NewSeeded(seed)}
	if rep, err := RunWorkload(cfg, rec, w); err != nil || !shows(rep, class) {
		return Counterexample{}, false
	}
	d := Shrink(rec.Decisions, func(d []int) bool {
		rep, _ := RunWorkload(cfg, &Decisions{List: d}, w)
		return shows(rep, class)
	}, shrinkBudget)
	cfg.NoTrace = false
	rep, _ := RunWorkload(cfg, &Decisions{List: d}, w)
	return Counterexample{Workload: w, Config: cfg, Decisions: d, Report: rep}, true
}

func shows(rep *Report, class string) bool {
	return rep != nil && slices.Contains(rep.Classes(), class)
}
