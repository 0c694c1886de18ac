// Package harnesstest checks any harness.Subject from go test: lock
// recipes, barriers, client programs and a user's own workloads. It is
// harness's testing half, as net/http/httptest is net/http's, and the
// only part of zksim that imports testing and rapid.
//
// Three entry points take any Subject: Check (rapid-drawn schedules),
// CheckExhaustive (the systematic search) and Replay (a saved failure).
// The Subjects of harness.Lock and harness.Barrier (a recipe.Lock, a
// recipe.Barrier) have their checks draw their workload's settings too;
// harness.Programs makes those of client programs. Every entry point's zero
// Options explore with every legal fault kind (sim.DefaultFaults, or
// sim.OneOfEach for the systematic search); some budgets set mean
// exactly those, and sim.Faults{None: true} none.
//
// Check explores with rapid: each rapid check draws a shape (up to the
// Subject's), the fault kinds it keeps of those allowed, and a seed,
// and runs a few schedules from consecutive seeds with a seeded chooser,
// so that faults and ticks are as likely at every step as in `zksim
// run`. Every violation class found is shrunk (smallest shape first,
// then sim.Shrink on the recorded decisions, for at most
// -zksim.shrinktime), run again and compared with its first run (code
// that does not replay is told where it diverged, not given a verdict), saved as a trace file named after the
// test, the Subject, the class and a hash, and reported once, with the
// Replay call that replays it and the go test command that runs the
// test. CheckExhaustive runs the systematic search (harness.Explore),
// searches again at smaller shapes, and fails the test with the
// counterexample, reported the same way.
package harnesstest
