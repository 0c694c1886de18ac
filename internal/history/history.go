package history

import (
	"fmt"
	"sync"

	"github.com/zksim/zksim/zkapi"
)

// Kind is what an Entry records.
type Kind uint8

// Kinds of Entry.
const (
	Call     Kind = iota // a Conn method was called
	Return               // it returned
	Wait                 // Watch.Wait was called
	Woken                // Watch.Wait returned an event: a wake-up
	Acquire              // the workload began to acquire (Read: for reading)
	Held                 // the acquisition returned the lock
	GaveUp               // the acquisition returned an error
	Release              // the workload began to release
	Released             // the release returned
)

var kindNames = [...]string{"call", "return", "wait", "woken", "acquire", "held", "gaveup", "release", "released"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Entry is one thing a client did or saw.
type Entry struct {
	At     int64 // the Recorder's clock
	Client int
	Kind   Kind
	ID     int    // Call, Return: the call's number, the same on both
	Op     string // Call, Return: the Conn method, lower case ("create", "childrenw", ...)
	Path   string // the call's path; Wait, Woken: the watched path
	Mode   zkapi.CreateMode
	Ops    []zkapi.Op // a multi's
	Result string     // a create's path
	Names  []string   // a listing's children (children, childrenw)
	Err    error
	Watch  int // a watch-setting call's watch (Return), or the watch waited on (Wait, Woken); 0: none
	Event  zkapi.Event
	Read   bool // Acquire: for reading
	// Session is the client's session after the entry, as Conn.Session
	// reported it: a change of ID or an Expired or Closed state ends
	// the ephemeral nodes of the session before.
	Session zkapi.Session
}

func (e Entry) String() string {
	s := fmt.Sprintf("%d c%d %s", e.At, e.Client+1, e.Kind)
	if e.Op != "" {
		s += " " + e.Op
	}
	if e.Path != "" {
		s += " " + e.Path
	}
	if e.Result != "" {
		s += " -> " + e.Result
	}
	if e.Kind == Woken {
		s += " " + e.Event.String()
	}
	if e.Err != nil {
		s += " err=" + zkapi.Name(e.Err)
	}
	return s
}

// Recorder records the history of a workload's clients. Its methods are
// safe for concurrent use; entries are kept in the order of their times.
type Recorder struct {
	clock   func() int64
	mu      sync.Mutex
	entries []Entry
	calls   int
	watches int
}

// New returns a Recorder that stamps entries with clock, which must not
// go backwards.
func New(clock func() int64) *Recorder { return &Recorder{clock: clock} }

// Entries returns a copy of the history so far.
func (r *Recorder) Entries() []Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Entry(nil), r.entries...)
}

// Mark records one of the workload's marks (Acquire, Held, GaveUp,
// Release, Released) for client, whose session is s.
func (r *Recorder) Mark(client int, k Kind, read bool, s zkapi.Session) {
	r.add(Entry{Client: client, Kind: k, Read: read, Session: s})
}

// add stamps e and appends it; for a Call it numbers the call, and for
// a Return that set a watch (Watch < 0) it numbers the watch.
func (r *Recorder) add(e Entry) Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	e.At = r.clock()
	if e.Kind == Call {
		r.calls++
		e.ID = r.calls
	}
	if e.Watch < 0 {
		r.watches++
		e.Watch = r.watches
	}
	r.entries = append(r.entries, e)
	return e
}
