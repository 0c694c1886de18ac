package election

import (
	"context"

	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// Recipe is leader election in the shape the harness drives (recipe.Lock):
// each acquisition is a Campaign at dir for the candidate id, and its Held
// is the Leadership. The standard workload so has leaders write to
// the protected resource with their term, and the harness checks the
// terms (recipe.Lock.Terms) beside mutual exclusion, herds and orphans.
func Recipe() recipe.Lock {
	return recipe.Lock{
		Name: "election",
		Acquire: func(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error) {
			e, err := New(conn, dir, Options{ID: id})
			if err != nil {
				return nil, err
			}
			l, err := e.Campaign(ctx)
			if err != nil {
				return nil, err // not a nil *Leadership in a non-nil Held
			}
			return l, nil
		},
		Terms: true,
	}
}
