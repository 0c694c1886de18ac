package election

import (
	"context"

	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/zkapi"
)

// Recipe is leader election in the shape the harness drives (lock.Recipe):
// each acquisition is a Campaign at dir for the candidate id, and its Held
// is the Leadership: Release resigns, Token is the term and Fenced the
// leader's fenced write. The standard workload so has leaders write to
// the protected resource with their term, and the harness checks the
// terms (Recipe.Terms) beside mutual exclusion, herds and orphans.
func Recipe() lock.Recipe {
	return lock.Recipe{
		Name: "election",
		Acquire: func(ctx context.Context, conn zkapi.Conn, dir, id string) (lock.Held, error) {
			e, err := New(conn, dir, Options{ID: id})
			if err != nil {
				return nil, err
			}
			l, err := e.Campaign(ctx)
			if err != nil {
				return nil, err
			}
			return held{l}, nil
		},
		Terms: true,
	}
}

// held is a Leadership as a lock.Held.
type held struct{ *Leadership }

// Release resigns.
func (h held) Release(ctx context.Context) error { return h.Resign(ctx) }

// Token is the term, read when the election was won: it needs no request.
func (h held) Token(context.Context) (int64, error) { return h.Term(), nil }
