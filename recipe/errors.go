package recipe

import "errors"

// Errors of a Lease and of every recipe (lock, rwlock, semaphore,
// election, barrier), compared with errors.Is. Their texts keep the lock
// family's "lock:" prefix; the election and the barrier report them in
// words of their own ("election: leadership lost", "barrier: member
// already left"), which errors.Is takes for these.
var (
	// ErrWouldBlock: a TryAcquire found the lock held, or all of a
	// semaphore's leases taken or waited for; a TryCampaign found another
	// candidate ahead.
	ErrWouldBlock = errors.New("lock: held by another holder")
	// ErrLost: the session that held (or was queueing for) the lease
	// ended, and with it the lease's node; another holder may hold now.
	// A leadership is also lost when its node is deleted by someone
	// else; a barrier member, when its session ends.
	ErrLost = errors.New("lock: session lost, lock no longer held")
	// ErrSuspended: the holder is disconnected and asked to lose its
	// lease on disconnection (the recipes' LoseOnDisconnect option): the
	// session may yet survive, but holding cannot be assumed.
	ErrSuspended = errors.New("lock: disconnected, holding is uncertain")
	// ErrReleased: the lease was already released (the leadership
	// resigned, the barrier member left).
	ErrReleased = errors.New("lock: lease released")
	// ErrSequenceOverflow: the directory's sequence counter reached
	// 2^31-1; ZooKeeper would now hand out repeated or wrapped numbers.
	ErrSequenceOverflow = errors.New("lock: sequence counter of the directory is at 2^31-1")
	// ErrDuplicateSequence: two nodes of one queue share a sequence
	// number.
	ErrDuplicateSequence = errors.New("lock: two lock nodes share a sequence number")
	// ErrConfig: a bad path, size or option, or a descriptor the harness
	// cannot check (Lock.Validate, Barrier.Validate).
	ErrConfig = errors.New("lock: invalid configuration")
)

// errBarrierConfig is ErrConfig in package barrier's words, for
// Barrier.Validate.
var errBarrierConfig error = &kin{"barrier: invalid configuration", ErrConfig}

// kin is an error with a recipe's own text that errors.Is takes for one
// of the family's (package barrier and the election have their own, in
// internal/queue, which this leaf cannot import).
type kin struct {
	text   string
	family error
}

func (k *kin) Error() string { return k.text }
func (k *kin) Unwrap() error { return k.family }
