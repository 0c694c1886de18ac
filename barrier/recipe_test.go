package barrier_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/zksim/zksim/barrier"
)

// TestRecipeValidate_Refuses: a Recipe the harness cannot check is
// refused with ErrConfig, naming the field.
func TestRecipeValidate_Refuses(t *testing.T) {
	good := barrier.DoubleRecipe()
	halfSingle := &barrier.Single{Set: good.Single.Set, Wait: good.Single.Wait}
	for _, tc := range []struct {
		r    barrier.Recipe
		want string
	}{
		{barrier.Recipe{Name: "mine"}, "recipe mine: Recipe.Enter and Recipe.Single are nil"},
		{barrier.Recipe{Enter: good.Enter}, `Recipe.Name is "", want a name without spaces`},
		{barrier.Recipe{Name: "a b", Enter: good.Enter}, `Recipe.Name is "a b"`},
		{barrier.Recipe{Name: "half", Single: halfSingle}, "recipe half: Recipe.Single has a nil Set, Remove or Wait"},
	} {
		err := tc.r.Validate()
		if !errors.Is(err, barrier.ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want ErrConfig with %q", tc.r.Name, err, tc.want)
		}
	}
	for _, r := range []barrier.Recipe{good, {Name: "enter", Enter: good.Enter}, {Name: "single", Single: good.Single}} {
		if err := r.Validate(); err != nil {
			t.Errorf("%s: %v", r.Name, err)
		}
	}
}
