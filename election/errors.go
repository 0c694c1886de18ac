package election

import (
	"errors"
)

// Errors of the election package. A bad path or option is
// recipe.ErrConfig, and a directory whose sequence counter is spent
// recipe.ErrSequenceOverflow (or recipe.ErrDuplicateSequence), as for
// every recipe of the lock family.
var (
	// ErrLost: leadership ended without Release: the session that owned
	// the candidate's node ended, or the node was deleted by someone
	// else. Another candidate may lead, with a higher term, by now.
	ErrLost = errors.New("election: leadership lost")
	// ErrResigned: the leadership was given up with Release.
	ErrResigned = errors.New("election: resigned")
	// ErrNoLeader: Leader found no candidate in the election directory.
	ErrNoLeader = errors.New("election: no leader")
	// ErrNotElected: TryCampaign found another candidate ahead.
	ErrNotElected = errors.New("election: another candidate leads")
)
