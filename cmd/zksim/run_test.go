package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestProgress_Terminal: on a terminal, zksim run redraws one status line
// (done/total, rate, violations, ETA) and clears it at the end; elsewhere
// (a pipe, a file, CI) it writes nothing.
func TestProgress_Terminal(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{w: &buf, on: true}
	p.update(tally{failing: 1}, 5, 10, 0, time.Now().Add(-time.Second))
	p.update(tally{failing: 1}, 6, 10, 0, time.Now().Add(-time.Second)) // within 200 ms: not redrawn
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

	buf.Reset()
	p = newProgress(&buf) // not a terminal
	p.update(tally{}, 5, 10, 0, time.Now().Add(-time.Second))
	p.done()
	if buf.Len() != 0 {
		t.Errorf("progress written to a non-terminal: %q", buf.String())
	}
}
