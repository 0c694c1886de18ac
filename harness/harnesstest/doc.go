// Package harnesstest checks lock recipes and client programs from go
// test, on top of package harness: it is harness's testing half, as
// net/http/httptest is net/http's, and the only part of zksim that
// imports testing and rapid.
//
// CheckRecipe and Check explore with rapid: each rapid check draws a
// workload shape, the fault kinds it keeps of those allowed, and a seed,
// and runs a few schedules from consecutive seeds with a seeded chooser,
// so that faults and ticks are as likely at every step as in `zksim run`.
// Every violation class found is shrunk (smallest workload first, then
// sim.Shrink on the recorded decisions: harness.ShrinkFound), saved as a
// trace file and reported once, with the ReplayFile or ReplayCheck call
// that replays it. CheckExhaustive and CheckProgramsExhaustive run the
// systematic search (harness.Explore, sim.Explore) and fail the test with
// its counterexample.
package harnesstest
