// Package simcli is zksim's command line for lock recipes and any other
// harness.Subject (barriers, your own workloads) as a library
// (CLI.Recipes, CLI.Subjects):
// run (explore faulted schedules and check them), replay (re-run a saved
// failure byte for byte), list, merge (join a sharded run's verdicts) and
// version and explain (the words of a trace). run and replay show traces
// as -view says: lines (a unique step a line, runs of
// ticks collapsed, the blamed steps marked), columns (one per client) or
// raw.
// cmd/zksim is this command line over zksim's own recipes; a program of a
// few lines gives the same to a recipe of your own:
//
//	package main // cmd/mycheck
//
//	import (
//		"example.com/you/mylock"
//		"github.com/zksim/zksim/simcli"
//	)
//
//	func main() { simcli.Main(mylock.Recipe()) }
//
// Then `go run ./cmd/mycheck run -recipe mylock -time 1m` explores it on
// every core, and a failure's replay hint reads
// `go run ./cmd/mycheck replay FILE`: the hint names the program as it
// was invoked (an installed or built binary by the name it was run with,
// a go run by the same go run from the working directory), and FILE,
// named RECIPE-CLASS-seedS-HASH, is never another failure's (artifacts.go).
//
// # Exploration
//
// Schedule k of a run is the run of seed S+k (-seed S). -parallel workers
// take schedules from a shared counter; their outcomes are tallied in
// schedule order, so the counts, the printed traces and the first failure
// (the smallest failing seed, and so its minimized counterexample) are
// those of a sequential run. A worker never stops in the middle of a
// schedule: a run stopped by -time or Ctrl-C has run exactly schedules
// 0..n-1, and says so.
//
// -shard I/N keeps the schedules k with k mod N = I, so N machines split
// one run, whether it has a schedule count or a time limit; each writes
// its verdict with -summary FILE (JSON), and merge adds the counts up and
// keeps the first failure with the smallest seed.
//
// # Output for CI
//
// run -json writes JSON lines on stdout (each failing schedule in
// schedule order, the saved counterexample, the summary; cijson.go, and
// docs/cli.md's "Using zksim in CI" for the schema), the text report then
// on stderr; -junit FILE writes a JUnit XML report (junit.go). Both are
// decided by the seeds and flags, except the elapsed time, kept apart;
// merge takes both flags too.
//
// # Exit codes
//
// Each means one thing: 0 no violation, 1 a violation (or merge missing a
// shard), 2 usage error, 3 could not run (servers unreachable or, for
// -ensemble, not starting; a report lost after the run), 130 a run
// stopped by Ctrl-C or SIGTERM before it saw any violation, its reports
// written. A usage error is decided before anything runs: every flag is
// checked against its range, input the run would ignore is refused (a
// fault kind named twice, -read without reads), the -summary, -junit and
// -out paths are checked writable, and then the run's configuration
// and workload against the library's (harness.Validate), so that
// nothing the library would refuse starts.
package simcli
