package fakeconfig_test

import (
	"reflect"
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/fakeconfig"
	"github.com/zksim/zksim/internal/machine"
)

// TestMachine_CopiesEveryField: fakezk.Config and machine.Config have the
// same fields, and the conversion fakezk registers carries each, so a
// field added to one and not the other, or left out of the copy, fails
// here rather than being silently zero in the simulator.
func TestMachine_CopiesEveryField(t *testing.T) {
	var c fakezk.Config
	v := reflect.ValueOf(&c).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.String:
			f.SetString("s")
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(i%2 + 1)) // 1 or 2: Overflow must stay a known mode
		case reflect.Uint64:
			f.SetUint(uint64(i + 1))
		default:
			t.Fatalf("fakezk.Config.%s: no test value for kind %v", v.Type().Field(i).Name, f.Kind())
		}
	}
	c.Overflow = fakezk.OverflowWrap
	m := reflect.ValueOf(fakeconfig.Machine(c))
	if m.NumField() != v.NumField() {
		t.Fatalf("machine.Config has %d fields, fakezk.Config %d", m.NumField(), v.NumField())
	}
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		got := m.FieldByName(name)
		if !got.IsValid() {
			t.Errorf("machine.Config has no field %s", name)
			continue
		}
		if want := v.Field(i); got.Kind() != want.Kind() || (got.Kind() == reflect.String && got.String() != want.String()) ||
			(got.CanInt() && got.Int() != want.Int()) || (got.CanUint() && got.Uint() != want.Uint()) ||
			(got.Kind() == reflect.Bool && got.Bool() != want.Bool()) {
			t.Errorf("%s: machine.Config has %v, fakezk.Config %v", name, got, want)
		}
	}
	if got := fakeconfig.Machine(c).Overflow; got != machine.OverflowWrap {
		t.Errorf("Overflow: %v, want wrap", got)
	}
}
