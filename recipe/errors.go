package recipe

import "errors"

// Errors of a Lease and of the lock family's recipes (lock, rwlock,
// semaphore; the election has words of its own for losing and giving up
// leadership, and keeps these in the chain). Their texts keep the
// family's "lock:" prefix.
var (
	// ErrWouldBlock: a TryAcquire found the lock held, or all of a
	// semaphore's leases taken or waited for.
	ErrWouldBlock = errors.New("lock: held by another holder")
	// ErrLost: the session that held (or was queueing for) the lease
	// ended, and with it the lease's node; another holder may hold now.
	ErrLost = errors.New("lock: session lost, lock no longer held")
	// ErrSuspended: the holder is disconnected and asked to lose its
	// lease on disconnection (the recipes' LoseOnDisconnect option): the
	// session may yet survive, but holding cannot be assumed.
	ErrSuspended = errors.New("lock: disconnected, holding is uncertain")
	// ErrReleased: the lease was already released.
	ErrReleased = errors.New("lock: lease released")
	// ErrSequenceOverflow: the directory's sequence counter reached
	// 2^31-1; ZooKeeper would now hand out repeated or wrapped numbers.
	ErrSequenceOverflow = errors.New("lock: sequence counter of the directory is at 2^31-1")
	// ErrDuplicateSequence: two nodes of one queue share a sequence
	// number.
	ErrDuplicateSequence = errors.New("lock: two lock nodes share a sequence number")
	// ErrConfig: a bad path or option, or a descriptor the harness
	// cannot check (Lock.Validate).
	ErrConfig = errors.New("lock: invalid configuration")
)
