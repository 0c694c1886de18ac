package main

import (
	"fmt"
	"io"
	"strings"
)

// barrierTables reports the barriers (package barrier): schedules of the
// good barriers, and for the zoo of broken ones the schedules until a
// seeded run finds each, then the systematic search's states to find
// them and the bounds it exhausts on the good ones. Sections whose
// benchmarks did not run are left out.
func barrierTables(w io.Writer, r results) {
	if rs := names(r, "BenchmarkBarrierSchedules/"); len(rs) > 0 {
		fmt.Fprint(w, "\n## Barriers: schedule exploration (double: 3 clients x 2 rounds; single: a controller and 2 waiters; every legal fault, one core)\n\n")
		fmt.Fprint(w, "| barrier / strategy | schedules/s | steps/schedule |\n|---|---|---|\n")
		for _, name := range rs {
			m := r[name]
			fmt.Fprintf(w, "| %s | %.0f | %.0f |\n", strings.TrimPrefix(name, "BenchmarkBarrierSchedules/"), m["schedules/s"], m["steps/schedule"])
		}
	}
	if rs := names(r, "BenchmarkBarrierZooFind/"); len(rs) > 0 {
		fmt.Fprint(w, "\n## Finding each barrier zoo bug (its smallest workload, every legal fault, over 20 seeds)\n\n")
		fmt.Fprint(w, "| bug / strategy | median schedules | p95 schedules | median time | p95 time |\n|---|---|---|---|---|\n")
		for _, name := range rs {
			m := r[name]
			fmt.Fprintf(w, "| zoo/%s | %.0f | %.0f | %.1f ms | %.1f ms |\n", strings.TrimPrefix(name, "BenchmarkBarrierZooFind/"),
				m["median-schedules"], m["p95-schedules"], m["median-ms"], m["p95-ms"])
		}
	}
	if rs := names(r, "BenchmarkBarrierExploreZoo/"); len(rs) > 0 {
		fmt.Fprint(w, "\n## Systematic search: finding each barrier zoo bug (one fault of each kind, deepening on deviations, one core)\n\n")
		fmt.Fprint(w, "| bug | clients | deviations | states | schedules | time | decisions |\n|---|---|---|---|---|---|---|\n")
		for _, name := range rs {
			m := r[name]
			fmt.Fprintf(w, "| zoo/%s | %.0f | %.0f | %.0f | %.0f | %s | %.0f |\n", strings.TrimPrefix(name, "BenchmarkBarrierExploreZoo/"),
				m["clients"], m["deviations"], m["states"], m["schedules"], dur(m["ns/op"]), m["decisions"])
		}
	}
	if rs := names(r, "BenchmarkBarrierExhaust/"); len(rs) > 0 {
		fmt.Fprint(w, "\n## Systematic search: the good barriers exhausted at fixed bounds (one fault of each kind, one core)\n\n")
		fmt.Fprint(w, "| barrier / clients x rounds / deviations | states | schedules | time | states/s |\n|---|---|---|---|---|\n")
		for _, name := range rs {
			m := r[name]
			fmt.Fprintf(w, "| %s | %.0f | %.0f | %s | %.0f |\n", strings.TrimPrefix(name, "BenchmarkBarrierExhaust/"),
				m["states"], m["schedules"], dur(m["ns/op"]), m["states/s"])
		}
	}
}
