package zoo_test

import (
	"testing"

	"github.com/zksim/zksim/barrier/zoo"
)

// Every exhibit is named as its recipe, once, and Lookup finds it.
func TestExhibits_NamedOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, ex := range zoo.Exhibits() {
		if ex.Name != ex.Recipe.Name || seen[ex.Name] || ex.Recipe.Enter == nil || ex.Clients < 2 || ex.Rounds < 1 {
			t.Errorf("exhibit %q: recipe %q, seen %v, clients %d, rounds %d", ex.Name, ex.Recipe.Name, seen[ex.Name], ex.Clients, ex.Rounds)
		}
		seen[ex.Name] = true
		if got, ok := zoo.Lookup(ex.Name); !ok || got.Name != ex.Name {
			t.Errorf("Lookup(%q) = %q, %v", ex.Name, got.Name, ok)
		}
	}
	if len(zoo.All()) != len(zoo.Exhibits()) {
		t.Error("All and Exhibits differ")
	}
	if _, ok := zoo.Lookup("zoo/none"); ok {
		t.Error("Lookup found zoo/none")
	}
}
