package lock

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/zksim/zksim/internal/queue"
)

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
	// LoseOnDisconnect makes Check and Wait report ErrSuspended as soon as
	// the connection drops, before the server decides about the session.
	LoseOnDisconnect bool

	_ struct{}
}

// validate fills defaults and checks dir and the options.
func (o Options) validate(dir string) (Options, error) {
	if err := checkDir(dir); err != nil {
		return o, err
	}
	if o.ID == "" {
		b := make([]byte, 8)
		rand.Read(b)
		o.ID = hex.EncodeToString(b)
	}
	if !queue.ValidGUIDPart(o.ID) {
		return o, fmt.Errorf("%w: ID %q may hold only letters, digits, '.' and '_'", ErrConfig, o.ID)
	}
	return o, nil
}

func checkDir(dir string) error {
	if !strings.HasPrefix(dir, "/") || dir == "/" || strings.HasSuffix(dir, "/") || strings.Contains(dir, "//") {
		return fmt.Errorf("%w: lock path %q must be an absolute node path other than /", ErrConfig, dir)
	}
	return nil
}
