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
	Schedules int // schedules run to find it, before shrinking
}

// Minimize looks for a run of w that shows violation class, trying the
// smallest workloads first (fewer clients, then fewer acquisitions, up to
// w's), each with up to perSize seeds from config(seed), and shrinks the
// first one found. ok is false if none was found.
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
	shows := func(rep *Report) bool { return rep != nil && slices.Contains(rep.Classes(), class) }
	runs := 0
	for _, sz := range sizes {
		ws := w
		ws.Clients, ws.Acquisitions = sz.clients, sz.acq
		for seed := uint64(1); seed <= uint64(perSize); seed++ {
			cfg := config(seed)
			cfg.NoTrace = true // search fast; the result is run again, traced
			rec := &Recorder{C: NewSeeded(seed)}
			rep, err := RunWorkload(cfg, rec, ws)
			runs++
			if err != nil || !shows(rep) {
				continue
			}
			d := Shrink(rec.Decisions, func(d []int) bool {
				rep, _ := RunWorkload(cfg, &Decisions{List: d}, ws)
				return shows(rep)
			}, 2000)
			cfg.NoTrace = false
			rep, _ = RunWorkload(cfg, &Decisions{List: d}, ws)
			return Counterexample{Workload: ws, Config: cfg, Decisions: d, Report: rep, Schedules: runs}, true
		}
	}
	return Counterexample{}, false
}
