package sim

import "github.com/zksim/zksim/internal/faultname"

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
