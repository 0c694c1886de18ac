package election

import (
	"errors"

	"github.com/zksim/zksim/internal/queue"
)

// Errors of the election package.
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
	// ErrSequenceOverflow: the directory's sequence counter reached
	// 2^31-1; ZooKeeper would now hand out repeated or wrapped numbers.
	ErrSequenceOverflow = queue.ErrSequenceOverflow
	// ErrDuplicateSequence: two candidate nodes share a sequence number.
	ErrDuplicateSequence = queue.ErrDuplicateSequence
	// ErrConfig: a bad election path or option.
	ErrConfig = queue.ErrConfig
)
