package ensemble

import "errors"

// Errors returned by this package, compared with errors.Is; returned
// errors wrap them with the member, address or path concerned.
var (
	// ErrNotInstalled: java or the ZooKeeper jars are missing.
	ErrNotInstalled = errors.New("ensemble: ZooKeeper not installed")
	// ErrPortTaken: another process holds a port of a member's config.
	ErrPortTaken = errors.New("ensemble: a port is taken by another process")
	// ErrNotServing: a member exited, or did not serve in time.
	ErrNotServing = errors.New("ensemble: server not serving")
	// ErrNotRunning: the member has no running process (killed, exited).
	ErrNotRunning = errors.New("ensemble: member not running")
	// ErrRunning: Restart of a member whose process still runs.
	ErrRunning = errors.New("ensemble: member already running")
	// ErrStopped: the ensemble has been stopped.
	ErrStopped = errors.New("ensemble: stopped")
	// ErrNoLeader: no member reported leader (or standalone) in time.
	ErrNoLeader = errors.New("ensemble: no leader")
	// ErrBadIndex: a member index outside 0..Len()-1.
	ErrBadIndex = errors.New("ensemble: member index out of range")
	// ErrBadOptions: Options that cannot describe an ensemble.
	ErrBadOptions = errors.New("ensemble: bad options")
	// ErrNoPeers: Isolate, Heal or Lag on a standalone server, which has
	// no links to other members.
	ErrNoPeers = errors.New("ensemble: a standalone server has no peer links")
	// ErrUnsupported: process control this system does not offer.
	ErrUnsupported = errors.New("ensemble: not supported on this system")
)
