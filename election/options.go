package election

import "github.com/zksim/zksim/internal/queue"

// Options configures an Election handle.
type Options struct {
	// ID names the candidate inside node names; letters, digits, '.' and
	// '_'. Default: 16 random hex digits. Deterministic tests pass their own.
	ID string
	// Data is stored in the candidate's node, where Leader and Observe
	// read it (the leader's address, say).
	Data []byte

	_ struct{}
}

func (o Options) validate(dir string) (Options, error) {
	id, err := queue.CheckConfig(dir, o.ID)
	o.ID = id
	return o, err
}
