package sim

import (
	"cmp"

	"github.com/zksim/zksim/internal/faultname"
)

// FaultKind is one kind of fault a run can inject: the one description
// that traces, `zksim run -faults`, the rapid checks and the reports
// all read.
type FaultKind struct {
	Kind    Kind     // its event kind; Kind.String() is Name
	Name    string   // in traces, trace files and -faults
	Aliases []string // old spellings, accepted on input only
	Doc     string
	// Illegal faults break ZooKeeper's own guarantees: never in a default
	// mix, only asked for by name.
	Illegal bool
}

// faultKinds is in the order of the kinds (and of the trace file's faults
// line): the rapid checks draw a keep-or-drop for each in this order.
var faultKinds = []FaultKind{
	{Kind: LoseRequest, Doc: "a request is lost before the server sees it (connection loss, nothing applied)"},
	{Kind: LoseReply, Doc: "a request is applied and its reply lost (the lost create)"},
	{Kind: Disconnect, Doc: "a client's connection drops; it reconnects and re-registers its watches"},
	{Kind: Crash, Doc: "a client stops for good; its session lingers until it expires"},
	{Kind: Pause, Doc: "a client stops for longer than its session timeout (a GC pause)"},
	{Kind: Reap, Doc: "the container reaper deletes the empty lock directory"},
	{Kind: Reorder, Doc: "ILLEGAL: a reply overtakes earlier notifications (breaks ZooKeeper's order)", Illegal: true},
	{Kind: Abandon, Doc: "a client gives up its session on its own for a new one; the old session and its nodes live on until it expires (CURATOR-498)"},
}

// FaultKinds lists every fault kind, in Kind order.
func FaultKinds() []FaultKind {
	out := make([]FaultKind, len(faultKinds))
	for i, k := range faultKinds {
		k.Name = k.Kind.String()
		k.Aliases = faultname.Aliases(k.Name)
		out[i] = k
	}
	return out
}

// Budget is the field of f that bounds how many faults of kind k a run
// injects.
func (k FaultKind) Budget(f *Faults) *int {
	switch k.Kind {
	case LoseRequest:
		return &f.LoseRequest
	case LoseReply:
		return &f.LoseReply
	case Disconnect:
		return &f.Disconnect
	case Crash:
		return &f.Crash
	case Pause:
		return &f.Pause
	case Reap:
		return &f.Reap
	case Reorder:
		return &f.Reorder
	case Abandon:
		return &f.Abandon
	}
	panic("sim: " + k.Kind.String() + " is not a fault")
}

// DefaultFaults is every legal fault kind, a few of each, at 10% of a
// random walk's steps: what `zksim run` and the go test entry points
// inject unless told otherwise.
func DefaultFaults() Faults {
	return Faults{Percent: 10, LoseRequest: 2, LoseReply: 2, Disconnect: 2, Crash: 1, Pause: 1, Reap: 1, Abandon: 1}
}

// OneOfEach is one fault of every legal kind: the systematic search's
// default (`zksim run -strategy exhaustive`, harnesstest's Exhaustive
// checks), where each fault multiplies the schedules.
func OneOfEach() Faults {
	return Faults{LoseRequest: 1, LoseReply: 1, Disconnect: 1, Crash: 1, Pause: 1, Reap: 1, Abandon: 1}
}

// asked reports whether f says anything about which faults to inject: a
// budget, or None. A Faults that asks nothing is the zero value, up to
// Percent and PauseTicks, which tune faults without choosing them.
func (f Faults) asked() bool {
	if f.None {
		return true
	}
	for _, k := range faultKinds {
		if *k.Budget(&f) > 0 {
			return true
		}
	}
	return false
}

// Or is f as an entry point whose default is def reads it: no faults
// if f.None; def if f asks nothing (keeping f's Percent and PauseTicks
// when set, as `-faults percent=50` keeps the default kinds); otherwise
// exactly f's budgets, at def's Percent when f leaves it at 0 (a budget
// at 0% would never be drawn on).
func (f Faults) Or(def Faults) Faults {
	switch {
	case f.None:
		return Faults{None: true, PauseTicks: f.PauseTicks}
	case !f.asked():
		def.Percent = cmp.Or(f.Percent, def.Percent)
		def.PauseTicks = cmp.Or(f.PauseTicks, def.PauseTicks)
		return def
	}
	f.Percent = cmp.Or(f.Percent, def.Percent)
	return f
}
