package barrier

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/zksim/zksim/zkapi"
)

// Recipe is a barrier algorithm in the form zksim's harness checks:
// functions over a zkapi.Conn, as recipe.Lock is for locks. The good
// barriers (DoubleRecipe) and the zoo of broken ones (package
// zoo) are all Recipes, and so can be a user's own. A recipe
// never imports the harness.
type Recipe struct {
	Name string
	// Enter joins the double barrier of n members at dir for the member
	// id (letters, digits, '.' and '_', unique per call: the harness
	// passes "c3_1": client 3, its round 1) and returns once n members
	// have arrived, with what leaves it.
	Enter func(ctx context.Context, conn zkapi.Conn, dir, id string, n int) (Leaver, error)
	// Single is the single barrier at a path; nil if the recipe has
	// none.
	Single *Single
	// Keeps reports whether the recipe leaves the node at path behind on
	// purpose, for a barrier at dir (the double barrier's directory, or
	// the single barrier's node): a node that stays once every member has
	// gone, by design. dir and its ancestors are kept whatever Keeps
	// says: they are the caller's. Any other node a client created that
	// nobody will remove is an orphan (check.Orphan). nil: nothing
	// else is kept.
	Keeps func(dir, path string) bool
}

// Validate reports why the harness cannot check r, naming the field: a
// Name that a trace file's recipe line cannot hold (empty, or with
// spaces), neither Enter nor Single, or a Single without one of its
// three functions. (Which of the two a run needs is the workload's to
// say: harness.Barrier's Validate.)
func (r Recipe) Validate() error {
	switch {
	case r.Name == "" || strings.IndexFunc(r.Name, unicode.IsSpace) >= 0:
		return fmt.Errorf("%w: Recipe.Name is %q, want a name without spaces (a trace file's recipe line)", ErrConfig, r.Name)
	case r.Enter == nil && r.Single == nil:
		return fmt.Errorf("%w: recipe %s: Recipe.Enter and Recipe.Single are nil, want a double barrier's Enter, a Single, or both", ErrConfig, r.Name)
	case r.Single != nil && (r.Single.Set == nil || r.Single.Remove == nil || r.Single.Wait == nil):
		return fmt.Errorf("%w: recipe %s: Recipe.Single has a nil Set, Remove or Wait, want all three", ErrConfig, r.Name)
	}
	return nil
}

// Leaver is a member inside a double barrier: Leave returns once every
// member of its round has left. *Member is one.
type Leaver interface {
	Leave(ctx context.Context) error
}

// Single is a single barrier as the harness drives it: a controller
// raises and lowers it, waiters wait while it is raised.
type Single struct {
	Set    func(ctx context.Context, conn zkapi.Conn, path string) error
	Remove func(ctx context.Context, conn zkapi.Conn, path string) error
	Wait   func(ctx context.Context, conn zkapi.Conn, path string) error
}

// DoubleRecipe is DoubleBarrier and Barrier as a Recipe.
func DoubleRecipe() Recipe {
	return Recipe{
		Name: "barrier",
		Enter: func(ctx context.Context, conn zkapi.Conn, dir, id string, n int) (Leaver, error) {
			d, err := NewDouble(conn, dir, n, Options{ID: id})
			if err != nil {
				return nil, err
			}
			m, err := d.Enter(ctx)
			if err != nil {
				return nil, err // not a nil *Member in a non-nil Leaver
			}
			return m, nil
		},
		Single: &Single{
			Set: func(ctx context.Context, conn zkapi.Conn, path string) error {
				return single(ctx, conn, path, (*Barrier).Set)
			},
			Remove: func(ctx context.Context, conn zkapi.Conn, path string) error {
				return single(ctx, conn, path, (*Barrier).Remove)
			},
			Wait: func(ctx context.Context, conn zkapi.Conn, path string) error {
				return single(ctx, conn, path, (*Barrier).Wait)
			},
		},
	}
}

// single runs one method of the Barrier at path.
func single(ctx context.Context, conn zkapi.Conn, path string, op func(*Barrier, context.Context) error) error {
	b, err := New(conn, path)
	if err != nil {
		return err
	}
	return op(b, ctx)
}
