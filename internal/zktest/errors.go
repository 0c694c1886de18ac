package zktest

import "errors"

// Errors returned by this package, compared with errors.Is; returned errors
// wrap them with the address, server or session concerned.
var (
	// ErrNotServing: srvr answered without a Mode line (no quorum yet).
	ErrNotServing = errors.New("zktest: server not serving requests")
	// ErrNoLeader: no server of the cluster reports leader or standalone.
	ErrNoLeader = errors.New("zktest: no leader")
	// ErrNotRunning: the recorded PID is not a live server of this cluster.
	ErrNotRunning = errors.New("zktest: server process not running")
	// ErrBadIndex: a server index outside 1..len(Addrs).
	ErrBadIndex = errors.New("zktest: server index out of range")
	// ErrNoScript: scripts/zk.sh was not found.
	ErrNoScript = errors.New("zktest: scripts/zk.sh not found")
)
