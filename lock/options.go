package lock

import "github.com/zksim/zksim/internal/queue"

// Options configures a Mutex.
type Options struct {
	// ID names the holder inside node names; letters, digits, '.' and '_'.
	// Default: 16 random hex digits. Deterministic tests pass their own.
	ID string
	// Data is stored in the lock node (Curator stores the client's address).
	Data []byte
	// Reentrant makes Acquire on a handle that holds the lock succeed at
	// once, counting holds (Curator's InterProcessMutex). Otherwise a second
	// Acquire queues (InterProcessSemaphoreMutex).
	Reentrant bool
	// LoseOnDisconnect makes Check and Wait report recipe.ErrSuspended as soon as
	// the connection drops, before the server decides about the session.
	LoseOnDisconnect bool

	_ struct{}
}

// validate fills defaults and checks dir and the options
// (queue.CheckConfig, which rwlock uses too).
func (o Options) validate(dir string) (Options, error) {
	id, err := queue.CheckConfig(dir, o.ID)
	o.ID = id
	return o, err
}
