package zoo_test

import (
	"slices"
	"testing"

	"github.com/zksim/zksim/zoo"
)

// Every barrier exhibit is named as its recipe, once, has no lock
// recipe, and Lookup finds it.
func TestBarriers_NamedOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, ex := range zoo.Barriers() {
		if ex.Name != ex.Barrier.Name || seen[ex.Name] || ex.Barrier.Enter == nil || ex.Recipe.Name != "" || ex.Clients < 2 || ex.Rounds < 1 {
			t.Errorf("exhibit %q: barrier %q, recipe %q, seen %v, clients %d, rounds %d", ex.Name, ex.Barrier.Name, ex.Recipe.Name, seen[ex.Name], ex.Clients, ex.Rounds)
		}
		seen[ex.Name] = true
		if got, ok := zoo.Lookup(ex.Name); !ok || got.Name != ex.Name {
			t.Errorf("Lookup(%q) = %q, %v", ex.Name, got.Name, ok)
		}
	}
	if _, ok := zoo.Lookup("zoo/none"); ok {
		t.Error("Lookup found zoo/none")
	}
}

// Exhibits is every exhibit of every kind, the lock family's then the
// barriers', each name once.
func TestExhibits_EveryKind(t *testing.T) {
	all, locks, barriers := zoo.Exhibits(), zoo.Locks(), zoo.Barriers()
	var names, want []string
	for _, ex := range all {
		names = append(names, ex.Name)
	}
	for _, ex := range append(locks, barriers...) {
		want = append(want, ex.Name)
	}
	if !slices.Equal(names, want) || len(locks) == 0 || len(barriers) == 0 {
		t.Errorf("Exhibits = %v, want Locks then Barriers: %v", names, want)
	}
	slices.Sort(names)
	if len(slices.Compact(names)) != len(all) {
		t.Errorf("a name is listed twice: %v", names)
	}
}
