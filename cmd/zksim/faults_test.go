package main

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/zksim/zksim/sim"
)

func TestParseFaults_Abandon(t *testing.T) {
	for spec, want := range map[string]sim.Faults{
		"abandon":                           {Percent: 10, Abandon: 1},
		"abandon=3,lose-reply=2,percent=20": {Percent: 20, LoseReply: 2, Abandon: 3},
	} {
		got, err := parseFaults(spec)
		if err != nil || got != want {
			t.Errorf("parseFaults(%q) = %+v, %v; want %+v", spec, got, err, want)
		}
	}
}

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
