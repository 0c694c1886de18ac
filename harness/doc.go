// Package harness is the user of the scheduler (package sim) that checks
// lock recipes: the standard lock workload and its checkers, minimizing,
// and trace files with replay. Its go test half (rapid-drawn checks,
// systematic search and replay that fail a *testing.T) is package
// harness/harnesstest, so that a command using harness links neither
// testing nor rapid.
//
// RunWorkload runs the workload for a recipe.Lock once and checks the
// history (package check): mutual or reader/writer exclusion (at most
// Recipe.Leases holders for a semaphore), herd, fencing, orphans and
// liveness; Report says what it found. The workload
// learns what it judges from the scheduler's observations (sim.Observer),
// and is a sim.Scenario, so the systematic search explores it (Explore;
// harnesstest.CheckExhaustive in a test).
//
// BarrierWorkload does the same for a barrier.Recipe (RunBarrier,
// BarrierReport): N clients form a double barrier of N and go through
// rounds, or wait on a single barrier a controller removes; the checkers
// are entry and exit safety (check.BarrierEnters, BarrierLeaves,
// BarrierWaits), herd, orphans and liveness, and it too is a
// sim.Scenario (harnesstest.CheckBarrier, CheckBarrierExhaustive).
//
// Both workloads are Subjects: what Explore, Minimize, ShrinkSeed,
// SaveFailure and Replay take, so that a barrier's failure is minimized
// (fewest clients, then rounds, then decisions), saved and replayed as a
// lock's is; its trace file's workload line names the barrier workload.
//
// ShrinkSeed and Minimize (MinimizeWithin, with a time budget) shrink a
// failing run to a minimal counterexample, its workload before its
// decisions; ShrinkFound does it for any runner of a Subject
// (harnesstest's client programs too); Smaller lists the workloads a
// systematic search tries again. Confirm runs a counterexample once
// more and compares it with its first run, so that a verdict is reported
// only if it replays (ErrNondeterministic otherwise). A run saves to a TraceFile
// (SaveFailure; WriteFailure also describes it; SaveCounterexample as a
// test reports it) that ParseTraceFile reads back and Replay reproduces
// byte for byte; a run of programs saves with the recipe line
// "programs". WriteTrace shows a trace to a reader (unique steps, runs of
// ticks collapsed, the steps the violations blame marked, lines or a
// column per client; TraceLegend explains the words), without changing
// the file.
package harness
