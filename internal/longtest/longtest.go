// Package longtest marks the tests of the long-test mode. A search that
// proves the harness's power at full size (every zoo exhibit, the
// exhaustive bounds) takes minutes under the race detector, more than
// the normal suite can afford on two cores; such a test skips unless
// ZKSIM_LONG is set, a small sibling in the normal suite covers the same
// mechanism, and scripts/test.sh runs the long ones on their own,
// without -race, with a timeout of their own.
package longtest

import (
	"os"
	"testing"
)

// Env is the variable that turns the long tests on when set to anything
// but the empty string.
const Env = "ZKSIM_LONG"

// Enabled reports whether the long tests run.
func Enabled() bool { return os.Getenv(Env) != "" }

// Skip skips t unless the long tests run. It must be called in the
// TestXxx function itself, not in a helper or a subtest alone:
// scripts/test.sh finds the long tests by the function that calls it.
func Skip(t testing.TB) {
	t.Helper()
	if !Enabled() {
		t.Skip("long test: set ZKSIM_LONG=1")
	}
}
