// Package counterexample is what zksim's go test half
// (harness/harnesstest) and its commands (simcli) do with a failing run
// of a harness.Subject: shrink it to a minimal harness.Counterexample
// (Minimize, ShrinkSeed, ShrinkFound: a smaller Shape first, then fewer
// decisions; Smaller lists the shapes tried), confirm that it replays
// (Confirm, else ErrNondeterministic), and save and show it (Save,
// Write). It uses harness's public API only; a user reaches it through
// harnesstest.Check and `zksim run`.
package counterexample
