package suitecheck

import (
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Compare reports.
type recorder struct {
	testing.TB
	errs, logs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
}
func (r *recorder) Logf(format string, a ...any) { r.logs = append(r.logs, fmt.Sprintf(format, a...)) }

// TestCompare_Verdicts: a real pass that serve fails is an error unless
// known; a known test that passes is logged; unknown names are errors.
func TestCompare_Verdicts(t *testing.T) {
	real := map[string]string{"a": "pass", "b": "pass", "c": "pass", "d": "skip", "e": "pass"}
	serve := map[string]string{"a": "pass", "b": "fail", "c": "fail", "d": "fail", "e": "pass", "x": "pass"}
	known := map[string]string{"c": "no SASL users", "e": "was missing", "gone": "stale"}
	var r recorder
	Compare(&r, real, serve, known, "knownDifferences")
	errs := strings.Join(r.errs, "\n")
	for _, want := range []string{"b: fail on serve", "x (pass on serve) is not in testdata/real.txt", "knownDifferences names gone"} {
		if !strings.Contains(errs, want) {
			t.Errorf("errors lack %q:\n%s", want, errs)
		}
	}
	if len(r.errs) != 3 {
		t.Errorf("%d errors, want 3:\n%s", len(r.errs), errs)
	}
	logs := strings.Join(r.logs, "\n")
	for _, want := range []string{"c: fail, in knownDifferences: no SASL users", "e passes: remove it from knownDifferences"} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %q:\n%s", want, logs)
		}
	}
}
