package queue

import (
	"reflect"
	"testing"
)

// TestSteps_OrDefaultFillsEveryField: orDefault names the fields one by
// one, so a field added to Steps must be added there too; an empty Steps
// comes out with every step set, and a step the caller set is kept.
func TestSteps_OrDefaultFillsEveryField(t *testing.T) {
	v := reflect.ValueOf(Steps{}.orDefault())
	for i := range v.NumField() {
		if v.Field(i).IsNil() {
			t.Errorf("Steps{}.orDefault().%s is nil", v.Type().Field(i).Name)
		}
	}
	mine := func(a, b Member) int { return 0 }
	got := Steps{Order: mine}.orDefault().Order
	if reflect.ValueOf(got).Pointer() != reflect.ValueOf(mine).Pointer() {
		t.Error("orDefault replaced the caller's Order")
	}
}
