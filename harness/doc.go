// Package harness is the user of the scheduler (package sim) that checks
// workloads whole: a Subject is the programs of a run and their judge,
// and every entry point takes one. Its go test half (rapid-drawn checks,
// systematic search and replay that fail a *testing.T, shrinking every
// failure to a minimal counterexample) is package harness/harnesstest,
// so that a command using harness links neither testing nor rapid.
//
// Subjects: Lock (a recipe.Lock under the lock workload, whose settings
// are a Workload: mutual or reader/writer exclusion, at most
// Recipe.Leases holders for a semaphore, herd, fencing, orphans and
// liveness, package check), Barrier (a recipe.Barrier under the barrier
// workload, settings a BarrierWorkload: N clients form a double barrier
// and go through rounds, or wait on a single barrier a controller
// removes; entry and exit safety, herd, orphans, liveness), Programs
// (client programs with an invariant checked after every step), and any
// type a user writes with the six methods of Subject. Its Judge learns
// what it judges from the scheduler's observations and gives the one
// Report; ExplainVerdicts words the simulator's own verdicts for a
// Subject of programs.
//
// Run runs a Subject once; Explore searches every schedule within
// bounds (sim.Explore), its Judge's Invariant checked after every step,
// and returns the first Counterexample. A failing run saves to a
// TraceFile and an HTML report (SaveFailure) whose recipe line is the
// Subject's Name and workload line its Spec; ParseTraceFile reads it
// back, TraceFile.Subject makes the Subject of it again (Subject.Parse)
// and Replay reproduces it byte for byte.
package harness
