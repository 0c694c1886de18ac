package sim

import (
	"github.com/zksim/zksim/internal/faultname"
	"github.com/zksim/zksim/internal/simhook"
)

// faultKind is one kind of fault a run can inject (see
// simhook.FaultKind, the table as the module reads it).
type faultKind struct {
	kind evKind // its event kind; kind.String() is its name
	doc  string
	// illegal faults break ZooKeeper's own guarantees: never in a
	// default mix, only asked for by name.
	illegal bool
}

// faultKinds is in the order of the kinds (and of the trace file's faults
// line): the rapid checks draw a keep-or-drop for each in this order.
var faultKinds = []faultKind{
	{kind: evLoseRequest, doc: "a request is lost before the server sees it (connection loss, nothing applied)"},
	{kind: evLoseReply, doc: "a request is applied and its reply lost (the lost create)"},
	{kind: evDisconnect, doc: "a client's connection drops; it reconnects and re-registers its watches"},
	{kind: evCrash, doc: "a client stops for good; its session lingers until it expires"},
	{kind: evPause, doc: "a client stops for longer than its session timeout (a GC pause)"},
	{kind: evReap, doc: "the container reaper deletes the empty lock directory"},
	{kind: evReorder, doc: "ILLEGAL: a reply overtakes earlier notifications (breaks ZooKeeper's order)", illegal: true},
	{kind: evAbandon, doc: "a client gives up its session on its own for a new one; the old session and its nodes live on until it expires (CURATOR-498)"},
}

// faultTable is faultKinds as the module reads it (simhook.FaultKinds).
func faultTable() []simhook.FaultKind {
	out := make([]simhook.FaultKind, len(faultKinds))
	for i, k := range faultKinds {
		name := k.kind.String()
		out[i] = simhook.FaultKind{Name: name, Aliases: faultname.Aliases(name), Doc: k.doc, Illegal: k.illegal,
			Budget: func(f any) *int { return k.budget(f.(*Faults)) }}
	}
	return out
}

// budget is the field of f that bounds how many faults of kind k a run
// injects.
func (k faultKind) budget(f *Faults) *int {
	switch k.kind {
	case evLoseRequest:
		return &f.LoseRequest
	case evLoseReply:
		return &f.LoseReply
	case evDisconnect:
		return &f.Disconnect
	case evCrash:
		return &f.Crash
	case evPause:
		return &f.Pause
	case evReap:
		return &f.Reap
	case evReorder:
		return &f.Reorder
	case evAbandon:
		return &f.Abandon
	}
	panic("sim: " + k.kind.String() + " is not a fault")
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
