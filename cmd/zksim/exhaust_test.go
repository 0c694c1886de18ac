package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// -strategy exhaustive finds a zoo bug with the fewest deviations, saves
// it, and the saved trace replays with the same verdict. (noguidretry, at
// one deviation: under a thousand states, where assumeonwake's two took
// 25,000 and half a minute under -race; the README's assumeonwake
// command is TestDocs_ExhaustiveCommandsAsCommented's, a long test.)
func TestRunExhaustive_FindsAndReplays(t *testing.T) {
	dir := t.TempDir()
	code, out, errb := runOut(t, "run", "-strategy", "exhaustive", "-recipe", "zoo/noguidretry", "-parallel", "1", "-out", dir)
	if code != 1 || !strings.Contains(out, "counterexample with 1 deviations") || !strings.Contains(out, "deadlock") {
		t.Fatalf("exit %d, want 1 and a counterexample with 1 deviation:\n%s%s", code, out, errb)
	}
	path := regexp.MustCompile(`(?m)^trace: +(\S+)$`).FindStringSubmatch(out)
	if path == nil {
		t.Fatalf("no trace file named:\n%s", out)
	}
	code, replayed, errb := runOut(t, "replay", filepath.Clean(path[1]))
	if code != 1 || !strings.Contains(replayed, "deadlock") {
		t.Fatalf("replay: exit %d:\n%s%s", code, replayed, errb)
	}
}

// zksim's lock under the exhaustive strategy's defaults (2 clients x 1,
// one fault of each kind, 2 deviations) is exhausted clean, and a shard
// says which one it is.
func TestRunExhaustive_LockExhausted(t *testing.T) {
	code, out, errb := runOut(t, "run", "-strategy", "exhaustive", "-deviations", "1")
	if code != 0 || !strings.Contains(out, "exhausted within the bounds") || !strings.Contains(out, "faults one of each kind") {
		t.Fatalf("exit %d:\n%s%s", code, out, errb)
	}
	code, out, errb = runOut(t, "run", "-strategy", "exhaustive", "-deviations", "1", "-shard", "1/2")
	if code != 0 || !strings.Contains(out, "shard 1/2") || !strings.Contains(out, "exhausted within the bounds") {
		t.Fatalf("shard: exit %d:\n%s%s", code, out, errb)
	}
}

// A flag that means nothing to the strategy is refused by name (exit 2,
// usage error), as are bad bounds.
func TestRunExhaustive_RefusesOtherStrategiesFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"run", "-strategy", "exhaustive", "-schedules", "10"}, "-schedules: not with -strategy exhaustive"},
		{[]string{"run", "-strategy", "exhaustive", "-trace"}, "-trace: not with -strategy exhaustive"},
		{[]string{"run", "-deviations", "3"}, "-deviations: not with -strategy random"},
		{[]string{"run", "-strategy", "pct", "-max-states", "10"}, "-max-states: not with -strategy pct"},
		{[]string{"run", "-strategy", "exhaustive", "-deviations", "-5"}, "-deviations must be -1"},
		{[]string{"run", "-strategy", "exhaustive", "-depth", "-1"}, "-depth must be between 0 and 2147483647, got -1"},
		{[]string{"run", "-strategy", "exhaustive", "-deviations", "-1"}, "needs a -depth bound"},
	} {
		code, _, errb := runOut(t, c.args...)
		if code != 2 || !strings.Contains(errb, c.says) {
			t.Errorf("%v: exit %d, want 2 saying %q:\n%s", c.args, code, c.says, errb)
		}
	}
}
