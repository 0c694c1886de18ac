package recipe_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/zksim/zksim/election"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/rwlock"
	"github.com/zksim/zksim/zoo"
)

// TestLockValidate_Refuses: a Lock the harness cannot check is
// refused with ErrConfig, naming the field.
func TestLockValidate_Refuses(t *testing.T) {
	good := zoo.Mutex()
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
	for _, r := range []recipe.Lock{good, zoo.ReentrantMutex(), zoo.MultiMutex()} {
		if err := r.Validate(); err != nil {
			t.Errorf("%s: %v", r.Name, err)
		}
	}
}

// TestBarrierValidate_Refuses: a Barrier the harness cannot check is
// refused with ErrConfig, in package barrier's words, naming the field.
func TestBarrierValidate_Refuses(t *testing.T) {
	good := zoo.DoubleBarrier()
	halfSingle := &recipe.Single{Set: good.Single.Set, Wait: good.Single.Wait}
	for _, tc := range []struct {
		r    recipe.Barrier
		want string
	}{
		{recipe.Barrier{Name: "mine"}, "recipe mine: Recipe.Enter and Recipe.Single are nil"},
		{recipe.Barrier{Enter: good.Enter}, `Recipe.Name is "", want a name without spaces`},
		{recipe.Barrier{Name: "a b", Enter: good.Enter}, `Recipe.Name is "a b"`},
		{recipe.Barrier{Name: "half", Single: halfSingle}, "recipe half: Recipe.Single has a nil Set, Remove or Wait"},
	} {
		err := tc.r.Validate()
		if !errors.Is(err, recipe.ErrConfig) || !strings.HasPrefix(err.Error(), "barrier: invalid configuration: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want ErrConfig with %q", tc.r.Name, err, tc.want)
		}
	}
	for _, r := range []recipe.Barrier{good, {Name: "enter", Enter: good.Enter}, {Name: "single", Single: good.Single}} {
		if err := r.Validate(); err != nil {
			t.Errorf("%s: %v", r.Name, err)
		}
	}
}

// The lease types that Acquire and Campaign return beside recipe.Lease
// are recipe.Leases, each with the seven methods its embedded hold gives
// or it replaces: one that loses a method, or changes its signature,
// fails to compile here. (lock's and semaphore's Acquire return a
// recipe.Lease itself.)
var (
	_ recipe.Lease = (*rwlock.Lease)(nil)
	_ recipe.Lease = (*election.Leadership)(nil)
)
