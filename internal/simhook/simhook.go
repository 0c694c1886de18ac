// Package simhook is how the module's own packages (harness, simcli,
// harnesstest, their tests) reach the parts of package sim that a user of
// sim does not call: the typed observations of a run, whose requests and
// replies are internal/proto records; the fault table behind -faults,
// trace files and the rapid draws; and the coverage table's layout.
//
// Package sim imports this package and fills its variables in its init,
// so this package cannot name sim's types: what a hook takes is typed
// any, and each says which sim type it must be (a wrong one panics at
// once, in the module's own code). A package that calls a hook imports
// sim too, so the hooks are set before it runs. The whole Machine of a
// run needs no hook: sim.Sim.State is the *machine.Machine itself.
package simhook

import "github.com/zksim/zksim/internal/proto"

// Observer is told, in step order and as they happen, the typed
// observations of the scheduler, which knows nothing of what the
// clients' programs are for: workloads and their checkers learn what
// they judge from them. An Observer must not change the run. C is
// *sim.Client.
type Observer[C any] interface {
	// Applied: the server applied a request of c's, with reply r (which
	// may yet be lost on its way back; r is the scheduler's: read, not
	// kept or written).
	Applied(c C, req proto.Request, r *proto.Reply)
	// Expired: on a tick the server expired session, in a transaction
	// with this zxid (its closeSession), deleting its ephemerals.
	Expired(session, zxid int64)
	// Woken: a Wait of c's returned for the first time on a watch that
	// the change with this zxid fired (not a session's end, and not a
	// watch set by a request that crossed a session expiry, which
	// go-zookeeper sends on the new session).
	Woken(c C, path string, zxid int64)
	// Blocks: c called Wait on a watch that had not fired: it goes (back)
	// to waiting.
	Blocks(c C)
}

// Notifier is an Observer that is also told each watch notification a
// client receives, in the order it receives them (what a wire client
// reads from its connection).
type Notifier[C any] interface {
	Notified(c C, n proto.Notification)
}

// FaultKind is one kind of fault a run can inject: the one description
// that traces, `zksim run -faults`, the rapid checks and the reports all
// read.
type FaultKind struct {
	Name    string   // in traces, trace files and -faults
	Aliases []string // old spellings, accepted on input only
	Doc     string
	// Illegal faults break ZooKeeper's own guarantees: never in a default
	// mix, only asked for by name.
	Illegal bool
	// Budget is the field of f (a *sim.Faults) that bounds how many
	// faults of this kind a run injects.
	Budget func(f any) *int
}

// Hooks set by package sim's init.
var (
	// AddObserver adds o (an Observer[*sim.Client]) to the run s (a
	// *sim.Sim, from sim.New) before it runs.
	AddObserver func(s, o any)
	// Bubble makes the run s (a *sim.Sim) run inside wrap, which must
	// call run once before it returns: a synctest bubble, for programs
	// whose goroutines live on a fake clock (package gozksim).
	Bubble func(s any, wrap func(run func()))
	// KeepWorkers makes runs keep the coroutines their clients' programs
	// ran on for later runs, until release: for a caller that makes many
	// runs in a row, which then need not make and grow new ones. Once no
	// caller keeps them, release ends the idle ones.
	KeepWorkers func() (release func())
	// OnTick adds f to what runs after every tick of s's virtual time.
	OnTick func(s any, f func())
	// Await parks c (a *sim.Client, called from its own program) until
	// cond holds or its session changes: a scheduling point, whose
	// wake-up is the scheduler's choice. cond is called by the scheduler
	// between steps. on is a zkapi.Watch from c's Conn, or nil: what a
	// deadlock says c waited on.
	Await func(c any, cond func() bool, on any)
	// Fired reports whether w (a zkapi.Watch of a simulated client's)
	// has fired, without waiting on it.
	Fired func(w any) bool
	// Wire makes c (a *sim.Client) a wire client's: a request it made
	// is on the connection at once, so a connection that drops before
	// the request is sent fails it with a connection loss, as it fails a
	// request sent and not yet answered (a simulated client's request
	// waits for the next connection instead).
	Wire func(c any)
	// ClientOf is the *sim.Client whose Conn conn is, or nil.
	ClientOf func(conn any) any
	// Live reports whether c (a *sim.Client) has a live connection: it
	// is connected, and not paused, crashed or closed.
	Live func(c any) bool
	// Told adds what (bytes the program behind c was told) to c's
	// history, which stands for the program's state when a search
	// fingerprints states.
	Told func(c any, what []byte)
	// FaultKinds lists every fault kind, in the order of sim's event
	// kinds (and of a trace file's faults line).
	FaultKinds func() []FaultKind
	// IsFault reports whether ev (a sim.Event, as Config.Observe is
	// given it) injected a fault.
	IsFault func(ev any) bool
	// CoverageRuns is the number of runs c (a *sim.Coverage) counts.
	CoverageRuns func(c any) int
	// CoverageRows is c's table (c a *sim.Coverage) as text: a line a
	// row, each label after indent in a column labelWidth wide, and each
	// row's items wrapped after the item that passes width.
	CoverageRows func(c any, indent string, labelWidth, width int) string
)
