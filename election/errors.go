package election

import (
	"errors"

	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/recipe"
)

// Errors of the election package. Losing leadership, resigning it and
// finding another candidate ahead are the family's errors (package
// recipe) in the election's words: compare them with recipe.ErrLost,
// recipe.ErrReleased and recipe.ErrWouldBlock. A bad path or option is
// recipe.ErrConfig, and a directory whose sequence counter is spent
// recipe.ErrSequenceOverflow (or recipe.ErrDuplicateSequence), as for
// every recipe.
var (
	// ErrNoLeader: Leader found no candidate in the election directory.
	ErrNoLeader = errors.New("election: no leader")

	// errLost (recipe.ErrLost): leadership ended without Release: the
	// session that owned the candidate's node ended, or the node was
	// deleted by someone else. Another candidate may lead, with a higher
	// term, by now.
	errLost = queue.Kin("election: leadership lost", recipe.ErrLost)
	// errResigned (recipe.ErrReleased): the leadership was given up with
	// Release.
	errResigned = queue.Kin("election: resigned", recipe.ErrReleased)
	// errNotElected (recipe.ErrWouldBlock): TryCampaign found another
	// candidate ahead.
	errNotElected = queue.Kin("election: another candidate leads", recipe.ErrWouldBlock)
)
