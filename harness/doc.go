// Package harness is the user of the scheduler (package sim) that checks
// workloads whole: a Subject is the programs of a run and their judge,
// and every entry point takes one. Its go test half (rapid-drawn checks,
// systematic search and replay that fail a *testing.T) is package
// harness/harnesstest, so that a command using harness links neither
// testing nor rapid.
//
// Subjects: the lock Workload (a recipe.Lock: mutual or reader/writer
// exclusion, at most Recipe.Leases holders for a semaphore, herd,
// fencing, orphans and liveness, package check), the BarrierWorkload (a
// recipe.Barrier: N clients form a double barrier and go through rounds,
// or wait on a single barrier a controller removes; entry and exit
// safety, herd, orphans, liveness), Programs (client programs with an
// invariant checked after every step), and any type a user writes with
// the six methods of Subject. Its Judge learns what it judges from the
// run (zksim's workloads from the scheduler's typed observations) and
// gives the one Report.
//
// Run runs a Subject once; Explore searches every schedule within
// bounds (sim.Explore), its Judge's Invariant checked after every step.
// ShrinkSeed and Minimize (each within a time budget) shrink a
// failing run to a minimal counterexample, its Shape (Subject.Resize)
// before its decisions; ShrinkFound does it for a schedule a caller
// found; Smaller lists the shapes a systematic search tries again.
// Confirm runs a counterexample once more and compares it with its
// first run, so that a verdict is reported only if it replays
// (ErrNondeterministic otherwise). A run saves to a TraceFile
// (SaveFailure; WriteFailure also describes it; SaveCounterexample as a
// test reports it) whose recipe line is the Subject's Name and workload
// line its Spec; ParseTraceFile reads it back, TraceFile.Subject makes
// the Subject of it again (Subject.Parse) and Replay reproduces it byte
// for byte. WriteTrace shows a trace to a reader (unique steps, runs of
// ticks collapsed, the steps the violations blame marked, lines or a
// column per client; TraceLegend explains the words), without changing
// the file.
package harness
