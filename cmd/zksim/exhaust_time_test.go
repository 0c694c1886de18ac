package main

import (
	"strings"
	"testing"
)

// The exhaustive summary states the time bound with the others: by
// default a timer may fire between any two events (each early tick a
// deviation); -early-ticks 0 is the narrower model and says so; N bounds
// them; below -1 is refused.
func TestRunExhaustive_StatesTheTimeBound(t *testing.T) {
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{nil, "deviations <= 1, timers fire between any two events (an early tick: 1 deviation); exhausted within the bounds"},
		{[]string{"-early-ticks", "0"}, "no early ticks"},
		{[]string{"-early-ticks", "1"}, "early ticks <= 1"},
	} {
		args := append([]string{"run", "-strategy", "exhaustive", "-deviations", "1", "-parallel", "1"}, tc.flags...)
		code, out, errb := runOut(t, args...)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, want 0 and %q:\n%s%s", tc.flags, code, tc.want, out, errb)
		}
	}
	if code, _, errb := runOut(t, "run", "-strategy", "exhaustive", "-early-ticks", "-2"); code == 0 || !strings.Contains(errb, "-early-ticks") {
		t.Errorf("-early-ticks -2: exit %d, %s", code, errb)
	}
}
