package lock_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/zksim/zksim/lock"
)

// TestRecipeValidate_Refuses: a Recipe the harness cannot check is
// refused with ErrConfig, naming the field.
func TestRecipeValidate_Refuses(t *testing.T) {
	good := lock.MutexRecipe()
	for _, tc := range []struct {
		r    lock.Recipe
		want string
	}{
		{lock.Recipe{Name: "mine"}, "recipe mine: Recipe.Acquire is nil, want the function that takes the lock"},
		{lock.Recipe{Acquire: good.Acquire}, `Recipe.Name is "", want a name without spaces`},
		{lock.Recipe{Name: "my lock", Acquire: good.Acquire}, `Recipe.Name is "my lock"`},
		{lock.Recipe{Name: "sem", Acquire: good.Acquire, Leases: -1}, "Recipe.Leases is -1, want 0 or more"},
		{lock.Recipe{Name: "rw", Acquire: good.Acquire, AcquireRead: good.Acquire, Leases: 2}, "Recipe.Leases is 2 with an AcquireRead"},
	} {
		err := tc.r.Validate()
		if !errors.Is(err, lock.ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want ErrConfig with %q", tc.r.Name, err, tc.want)
		}
	}
	for _, r := range []lock.Recipe{good, lock.ReentrantRecipe(), lock.MultiRecipe()} {
		if err := r.Validate(); err != nil {
			t.Errorf("%s: %v", r.Name, err)
		}
	}
}
