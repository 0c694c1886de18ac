package longtest_test

import (
	"testing"

	"github.com/zksim/zksim/internal/longtest"
)

// Without ZKSIM_LONG a long test skips; with it, it runs.
func TestSkip_OnlyWithoutTheVariable(t *testing.T) {
	for _, tc := range []struct {
		value string
		skip  bool
	}{{"", true}, {"1", false}} {
		t.Run("ZKSIM_LONG="+tc.value, func(t *testing.T) {
			t.Setenv(longtest.Env, tc.value)
			ran := false
			t.Run("long", func(t *testing.T) {
				longtest.Skip(t)
				ran = true
			})
			if ran == tc.skip || longtest.Enabled() == tc.skip {
				t.Errorf("ran %v, enabled %v, want skipped %v", ran, longtest.Enabled(), tc.skip)
			}
		})
	}
}
