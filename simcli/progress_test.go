package simcli

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestProgress_Terminal: on a terminal, run redraws one status line
// (done/total, rate, violations, ETA) and clears it at the end.
func TestProgress_Terminal(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{w: &buf, terminal: true, start: time.Now().Add(-time.Second)}
	pl := plan{seed: 1, total: 10, shards: 1}
	p.update(&tally{schedules: 5, failing: 1}, pl, 0)
	p.update(&tally{schedules: 6, failing: 1}, pl, 0) // within 200 ms: not redrawn
	p.done()
	got := buf.String()
	if !strings.HasPrefix(got, "\r  5/10 schedules  ") || !strings.Contains(got, "violations 1  ETA ") {
		t.Errorf("status line: %q", got)
	}
	if strings.Contains(got, "6/10") {
		t.Errorf("redrawn within 200 ms: %q", got)
	}
	if !strings.HasSuffix(got, "\r\033[K") {
		t.Errorf("status line not cleared at the end: %q", got)
	}
}

// TestProgress_Periodic: elsewhere (a pipe, a file, CI) it writes a line
// once a period has passed since the last, and nothing at the end.
func TestProgress_Periodic(t *testing.T) {
	var buf bytes.Buffer
	start := time.Now().Add(-time.Minute)
	p := newProgress(&buf, 10*time.Second, start) // not a terminal
	pl := plan{seed: 1, shards: 1}
	p.update(&tally{schedules: 5}, pl, time.Hour)
	p.update(&tally{schedules: 6}, pl, time.Hour) // within the period: no line
	p.done()
	if got := buf.String(); !strings.HasPrefix(got, "progress: seeds 1..5 in 1m0s, 5 schedules (0/s), 0 with violations\n") || strings.Count(got, "\n") != 1 {
		t.Errorf("progress lines: %q", got)
	}
	buf.Reset()
	p = newProgress(&buf, 0, start)
	p.update(&tally{schedules: 5}, pl, 0)
	if buf.Len() != 0 {
		t.Errorf("progress written with no period: %q", buf.String())
	}
}
