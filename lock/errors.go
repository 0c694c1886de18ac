package lock

import "github.com/zksim/zksim/internal/queue"

// Errors of the lock package.
var (
	// ErrWouldBlock: TryAcquire found the lock held.
	ErrWouldBlock = queue.ErrWouldBlock
	// ErrLost: the session that held (or was queueing for) the lock ended,
	// and with it the lock node; another holder may hold the lock now.
	ErrLost = queue.ErrSessionLost
	// ErrSuspended: the holder is disconnected and Options.LoseOnDisconnect
	// is set; the session may yet survive, but holding cannot be assumed.
	ErrSuspended = queue.ErrSuspended
	// ErrReleased: the lease was already released.
	ErrReleased = queue.ErrReleased
	// ErrSequenceOverflow: the lock directory's sequence counter reached
	// 2^31-1; ZooKeeper would now hand out repeated or wrapped numbers.
	ErrSequenceOverflow = queue.ErrSequenceOverflow
	// ErrDuplicateSequence: two lock nodes share a sequence number.
	ErrDuplicateSequence = queue.ErrDuplicateSequence
	// ErrConfig: a bad lock path or option.
	ErrConfig = queue.ErrConfig
)
