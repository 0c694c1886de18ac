package recipe_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/zksim/zksim/election"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/rwlock"
	"github.com/zksim/zksim/semaphore"
)

// TestLockValidate_Refuses: a Lock the harness cannot check is
// refused with ErrConfig, naming the field.
func TestLockValidate_Refuses(t *testing.T) {
	good := lock.MutexRecipe()
	for _, tc := range []struct {
		r    recipe.Lock
		want string
	}{
		{recipe.Lock{Name: "mine"}, "recipe mine: Recipe.Acquire is nil, want the function that takes the lock"},
		{recipe.Lock{Acquire: good.Acquire}, `Recipe.Name is "", want a name without spaces`},
		{recipe.Lock{Name: "my lock", Acquire: good.Acquire}, `Recipe.Name is "my lock"`},
		{recipe.Lock{Name: "sem", Acquire: good.Acquire, Leases: -1}, "Recipe.Leases is -1, want 0 or more"},
		{recipe.Lock{Name: "rw", Acquire: good.Acquire, AcquireRead: good.Acquire, Leases: 2}, "Recipe.Leases is 2 with an AcquireRead"},
	} {
		err := tc.r.Validate()
		if !errors.Is(err, recipe.ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want ErrConfig with %q", tc.r.Name, err, tc.want)
		}
	}
	for _, r := range []recipe.Lock{good, lock.ReentrantRecipe(), lock.MultiRecipe()} {
		if err := r.Validate(); err != nil {
			t.Errorf("%s: %v", r.Name, err)
		}
	}
}

// The four lease types are recipe.Leases, each with the seven methods
// its embedded hold gives or it replaces: one that loses a method, or
// changes its signature, fails to compile here.
var (
	_ recipe.Lease = (*lock.Lease)(nil)
	_ recipe.Lease = (*rwlock.Lease)(nil)
	_ recipe.Lease = (*semaphore.Lease)(nil)
	_ recipe.Lease = (*election.Leadership)(nil)
)
