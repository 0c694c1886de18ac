package check_test

import (
	"testing"

	"github.com/zksim/zksim/check"
)

// A violation's one line is its class, its detail and its cause.
func TestViolation_StringShowsTheCause(t *testing.T) {
	v := check.Violation{Class: check.Fencing, Detail: "split brain", Cause: "c1 was paused"}
	if got := v.String(); got != "fencing: split brain; cause: c1 was paused" {
		t.Errorf("String() = %q", got)
	}
	v.Cause = ""
	if got := v.String(); got != "fencing: split brain" {
		t.Errorf("String() = %q", got)
	}
}
