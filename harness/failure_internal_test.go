package harness

import (
	"slices"
	"testing"

	"github.com/zksim/zksim/check"
)

// TestBlamedSteps_UnionOrNil: the HTML report highlights the checkers'
// own steps when every violation names some, and derives them otherwise.
func TestBlamedSteps_UnionOrNil(t *testing.T) {
	both := []check.Violation{{Steps: []int{40, 7}}, {Steps: []int{7, 12}}}
	if got := blamedSteps(both); !slices.Equal(got, []int{7, 12, 40}) {
		t.Errorf("blamedSteps = %v, want [7 12 40]", got)
	}
	if got := blamedSteps([]check.Violation{{Steps: []int{3}}, {}}); got != nil {
		t.Errorf("with a violation naming no step: %v, want nil", got)
	}
}
