package recipe

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/zksim/zksim/zkapi"
)

// Barrier is a barrier recipe in the form zksim's harness checks:
// functions over a zkapi.Conn, as Lock is for the lock family. The good
// barrier (package barrier), the zoo of broken ones and a user's own
// are all Barriers.
type Barrier struct {
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
// say: harness.Barrier's Validate.) The error is ErrConfig, in the words
// of package barrier.
func (r Barrier) Validate() error {
	switch {
	case r.Name == "" || strings.IndexFunc(r.Name, unicode.IsSpace) >= 0:
		return fmt.Errorf("%w: Recipe.Name is %q, want a name without spaces (a trace file's recipe line)", errBarrierConfig, r.Name)
	case r.Enter == nil && r.Single == nil:
		return fmt.Errorf("%w: recipe %s: Recipe.Enter and Recipe.Single are nil, want a double barrier's Enter, a Single, or both", errBarrierConfig, r.Name)
	case r.Single != nil && (r.Single.Set == nil || r.Single.Remove == nil || r.Single.Wait == nil):
		return fmt.Errorf("%w: recipe %s: Recipe.Single has a nil Set, Remove or Wait, want all three", errBarrierConfig, r.Name)
	}
	return nil
}

// Leaver is a member inside a double barrier: Leave returns once every
// member of its round has left. A barrier.Member is one.
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
