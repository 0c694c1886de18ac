// Package harness is the user of the scheduler (package sim) that checks
// lock recipes: the standard lock workload and its checkers, the go test
// runners, minimizing, and trace files with replay.
//
// RunWorkload runs the workload for a lock.Recipe once and checks the
// history (package check): mutual or reader/writer exclusion, herd,
// fencing, orphans and liveness; Report says what it found. The workload
// learns what it judges from the scheduler's observations (sim.Observer),
// and is a sim.Scenario, so the systematic search explores it (Explore;
// CheckExhaustive in a test).
//
// In tests, CheckRecipe and Check explore with rapid: each rapid check
// draws a workload shape, the fault kinds it keeps of those allowed, and a
// seed, and runs a few schedules from consecutive seeds with a seeded
// chooser, so that faults and ticks are as likely at every step as in
// `zksim run`. Every violation class found is shrunk (smallest workload
// first, then sim.Shrink on the recorded decisions), saved as a trace file
// and reported once, with the ReplayFile or ReplayCheck call that replays
// it. ShrinkSeed and Minimize shrink without rapid. A run saves to a
// TraceFile (SaveFailure; WriteFailure also describes it) that
// ParseTraceFile reads back and Replay reproduces byte for byte; a run of
// programs saves with the recipe line "programs". WriteTrace shows a trace
// to a reader (unique steps, runs of ticks collapsed, the steps the
// violations blame marked, lines or a column per client; TraceLegend
// explains the words), without changing the file.
package harness
