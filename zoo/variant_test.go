package zoo

import (
	"reflect"
	"slices"
	"testing"

	"github.com/zksim/zksim/internal/queue"
)

// Each queue exhibit is the good queue with exactly the one step it names
// swapped: the planted bug is the diff. Every other step is the queue's
// own (a nil field of queue.Steps), and the swapped one is not the
// default. The exhibits that are not variants are the three that say why.
func TestVariants_OneStepSwapped(t *testing.T) {
	def := reflect.ValueOf(queue.DefaultSteps())
	fields := reflect.TypeFor[queue.Steps]()
	var names []string
	for _, v := range variants() {
		names = append(names, v.name)
		s := reflect.ValueOf(v.steps)
		var set []string
		for i := range fields.NumField() {
			if !s.Field(i).IsNil() {
				set = append(set, fields.Field(i).Name)
			}
		}
		if !slices.Equal(set, []string{v.step}) {
			t.Errorf("%s swaps %v, want exactly [%s]", v.name, set, v.step)
			continue
		}
		f, ok := fields.FieldByName(v.step)
		if !ok {
			t.Errorf("%s: queue.Steps has no step %s", v.name, v.step)
			continue
		}
		if s.FieldByIndex(f.Index).Pointer() == def.FieldByIndex(f.Index).Pointer() {
			t.Errorf("%s: its %s is the default step", v.name, v.step)
		}
	}
	for _, v := range electVariants() {
		names = append(names, v.name) // TestElectVariants_OnePartSwapped
	}
	var standalone []string
	for _, ex := range Locks() {
		if !slices.Contains(names, ex.Name) {
			standalone = append(standalone, ex.Name)
		}
	}
	if want := []string{NameSingleNode, NameGoZKLock, NameSemMixedMax, NameSemBusyCount}; !slices.Equal(standalone, want) {
		t.Errorf("exhibits that are not queue variants: %v, want %v", standalone, want)
	}
}

// The zero Steps is the good queue: every default is set.
func TestDefaultSteps_AllSet(t *testing.T) {
	s := reflect.ValueOf(queue.DefaultSteps())
	for i := range s.NumField() {
		if s.Field(i).IsNil() {
			t.Errorf("DefaultSteps leaves %s nil", s.Type().Field(i).Name)
		}
	}
}

// Each election exhibit is the good election with exactly the one part
// it names swapped: its rule, its term or its fenced write.
func TestElectVariants_OnePartSwapped(t *testing.T) {
	for _, v := range electVariants() {
		var set []string
		if v.rule != nil {
			set = append(set, "Rule")
		}
		if v.term != nil {
			set = append(set, "Term")
		}
		if v.unfenced {
			set = append(set, "Write")
		}
		if v.steps.Watch != nil {
			set = append(set, "Watch")
		}
		if !slices.Equal(set, []string{v.part}) {
			t.Errorf("%s swaps %v, want exactly [%s]", v.name, set, v.part)
		}
		if r := electRecipe(v.name); r.Name != v.name || !r.Terms || r.AcquireRead != nil {
			t.Errorf("%s: recipe %q, Terms %v", v.name, r.Name, r.Terms)
		}
	}
}

// Each barrier exhibit that is a variant is the good barrier
// (DoubleBarrier) with exactly the one part it names swapped: a
// member's Leave after the good Enter, or the single barrier's Wait in
// a copy of the good recipe. The other barrier exhibits are the two
// classic designs the package doc names.
func TestBarrierVariants_OnePartSwapped(t *testing.T) {
	var names []string
	for _, v := range barrierVariants() {
		names = append(names, v.name)
		var set []string
		if v.leave != nil {
			set = append(set, "Leave")
		}
		if v.wait != nil {
			set = append(set, "Wait")
		}
		if !slices.Equal(set, []string{v.part}) {
			t.Errorf("%s swaps %v, want exactly [%s]", v.name, set, v.part)
			continue
		}
		r := v.recipe()
		switch {
		case r.Name != v.name || r.Enter == nil:
			t.Errorf("%s: recipe %q", v.name, r.Name)
		case v.part == "Wait" && (r.Single == nil || r.Single.Set == nil || r.Single.Remove == nil):
			t.Errorf("%s: a Wait variant without the good single barrier's Set and Remove", v.name)
		case v.part == "Leave" && r.Single != nil:
			t.Errorf("%s: a Leave variant has a single barrier", v.name)
		}
	}
	var standalone []string
	for _, ex := range Barriers() {
		if !slices.Contains(names, ex.Name) {
			standalone = append(standalone, ex.Name)
		}
	}
	if want := []string{NameBarrierAssumeOnWake, NameNoReady}; !slices.Equal(standalone, want) {
		t.Errorf("barrier exhibits that are not variants: %v, want %v", standalone, want)
	}
}
