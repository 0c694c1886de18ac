package sim

import (
	"fmt"
	"slices"

	"github.com/zksim/zksim/zkapi"
)

// What the black-box tests read of sim's internals: the step's options,
// the event kinds, and each of Coverage's counts.

// Options returns the options of the step being chosen, in the order a
// Chooser's index names them (Config.Flat): what the scheduler offers
// when it calls Choose with "event".
func Options(s *Sim) []Event { return slices.Clone(s.opts) }

// Asked reports whether f says anything about which faults to inject: a
// budget, or None.
func (f Faults) Asked() bool {
	if f.None {
		return true
	}
	for _, k := range faultKinds {
		if *k.budget(&f) > 0 {
			return true
		}
	}
	return false
}

// The limits kept unexported.
const (
	MaxFollowers = maxFollowers
	MaxPCTDepth  = maxPCTDepth
	MaxParallel  = maxParallel
)

// Kind is an event's kind.
type Kind = evKind

// The event kinds.
const (
	Send        = evSend
	Recv        = evRecv
	Wake        = evWake
	Tick        = evTick
	LoseRequest = evLoseRequest
	LoseReply   = evLoseReply
	Disconnect  = evDisconnect
	Reconnect   = evReconnect
	Crash       = evCrash
	Pause       = evPause
	CatchUp     = evCatchUp
	Reap        = evReap
	Reorder     = evReorder
	Abandon     = evAbandon
)

// IsFault reports whether the event kind is a fault.
func (k evKind) IsFault() bool { return k.isFault() }

// Activity is what a client was doing when something happened to it.
type Activity = activity

// The activities.
const (
	OnCreate       = onCreate
	OnDelete       = onDelete
	OnExists       = onExists
	OnGetData      = onGetData
	OnSetData      = onSetData
	OnGetChildren  = onGetChildren
	OnMulti        = onMulti
	OnSync         = onSync
	OnOtherRequest = onOtherRequest
	InWatch        = inWatch
	InSession      = inSession
	InSleep        = inSleep
	Idle           = idle
)

// SessionEvent is a state a client's session went through.
type SessionEvent = sessionEvent

// The session events.
const (
	SessionOpened       = sessionOpened
	SessionDisconnected = sessionDisconnected
	SessionReconnected  = sessionReconnected
	SessionExpired      = sessionExpired
	SessionAbandoned    = sessionAbandoned
	SessionCrashed      = sessionCrashed
	SessionPaused       = sessionPaused
)

// Never lists what no run exercised (the table's "never" row).
func (c *Coverage) Never() []string { return c.never() }

// Runs is the number of runs counted.
func (c *Coverage) Runs() int { return c.runs }

// Fault is how many faults of kind k landed on a client doing a.
func (c *Coverage) Fault(k evKind, a activity) int {
	if !k.isFault() || a >= numActivities {
		return 0
	}
	return c.faultsOf(k)[a]
}

// Did is how many requests of kind a were sent (or lost on the way), or
// for a wait, how many waits of that kind ended.
func (c *Coverage) Did(a activity) int { return c.did[a] }

// Deadline is how many virtual deadlines fired, on a context not yet
// done, while their client was doing a.
func (c *Coverage) Deadline(a activity) int { return c.deadlines[a] }

// Session is how many times clients went through e, and in how many
// client runs (a client in one run) at least once.
func (c *Coverage) Session(e sessionEvent) (times, clients int) { return c.sessions[e], c.clients[e] }

// Notified is how many notifications of type t clients received.
func (c *Coverage) Notified(t zkapi.EventType) int {
	if t < 1 || t > numWatchEvents {
		return 0
	}
	return c.watches[t-1]
}

// Reaped is how many times the container reaper ran, and the containers
// it deleted.
func (c *Coverage) Reaped() (runs, containers int) { return c.reaps, c.reaped }

// Expired is how many sessions the server expired.
func (c *Coverage) Expired() int { return c.expired }

// RunConfig is cfg as a search within b runs every schedule (what
// Failure.Config holds).
func (b Bounds) RunConfig(cfg Config) Config { return b.runConfig(cfg) }

// FaultsNow returns what the random walk asks before it injects a fault
// (anyFault: is one possible?) and every fault possible now (addFaults).
func FaultsNow(s *Sim) (bool, []Event) { return s.anyFault(), s.addFaults(nil) }

// CheckEvents brings the scheduler's event cache up to date and checks
// every client's entry against the client (see evcache.go), whatever
// the build's tags.
func CheckEvents(s *Sim) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	s.refresh()
	s.checkEvents()
	return nil
}

// SpoilEvents makes client i's cached events wrong without a touch, as a
// change the cache misses would.
func SpoilEvents(s *Sim, i int) { s.evs[i].normal ^= nRecv }

// SpoilBudget makes the kept set of faults with budget left wrong, as a
// fault injected with no recount would.
func SpoilBudget(s *Sim) { s.budgetSet ^= fCrash }
