package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// -faults abandon=N injects the fault, and zksim list names it.
func TestRun_AbandonFault(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"run", "-faults", "abandon=1,percent=100", "-schedules", "1", "-trace"}, &out, io.Discard); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "abandon c") || !strings.Contains(out.String(), "left to expire, new session") {
		t.Errorf("no abandoned session in the trace:\n%s", out.String())
	}
	out.Reset()
	run([]string{"list"}, &out, io.Discard)
	if !strings.Contains(out.String(), "\n  abandon ") {
		t.Errorf("zksim list does not name abandon:\n%s", out.String())
	}
}
