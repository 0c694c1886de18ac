// Package harnesstest checks lock recipes, barriers and client programs
// from go test, on top of package harness: it is harness's testing half,
// as net/http/httptest is net/http's, and the only part of zksim that
// imports testing and rapid.
//
// Every entry point's zero options explore with every legal fault kind
// (sim.DefaultFaults, or sim.OneOfEach for the systematic search); some
// budgets set mean exactly those, and sim.Faults{None: true} none.
//
// CheckRecipe, CheckBarrier and Check explore with rapid: each rapid
// check draws a workload shape, the fault kinds it keeps of those
// allowed, and a seed, and runs a few schedules from consecutive seeds
// with a seeded chooser, so that faults and ticks are as likely at every
// step as in `zksim run`. Every violation class found is shrunk (smallest
// workload first, then sim.Shrink on the recorded decisions:
// harness.ShrinkFound, for at most -zksim.shrinktime), run again and
// compared with its first run (harness.ConfirmRun: a recipe that does not
// replay is told where it diverged, not given a verdict), saved as a
// trace file named after the test, the recipe, the class and a hash, and
// reported once, with the ReplayFile, ReplayBarrierFile or ReplayCheck
// call that replays it and the go test command that runs the test.
// CheckExhaustive, CheckBarrierExhaustive and CheckProgramsExhaustive
// run the systematic search (harness.Explore, sim.Explore), search again
// at smaller workloads, and fail the test with the counterexample,
// reported the same way.
package harnesstest
