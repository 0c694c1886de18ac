package sim

import (
	"fmt"

	"github.com/zksim/zksim/internal/faultname"
)

// Kind is the kind of a scheduling event.
type Kind uint8

// Event kinds. Client events name the client they act on.
const (
	Send        Kind = iota // a pending request reaches the server
	Recv                    // the next message for a client arrives
	Wake                    // a blocked client's wait can end
	Tick                    // virtual time advances one tickTime
	LoseRequest             // fault: the request is lost before the server
	LoseReply               // fault: the request is applied, its reply lost
	Disconnect              // fault: the client's connection drops
	Reconnect               // the client reconnects (or learns of expiry)
	Crash                   // fault: the client stops for good
	Pause                   // fault: the client stops for PauseTicks
	CatchUp                 // a follower applies the leader's log
	Reap                    // the container reaper runs
	Reorder                 // illegal fault: a reply overtakes notifications
	Abandon                 // fault: the client gives up its session for a new one
	numKinds
)

var kindNames = [...]string{"send", "recv", "wake", "tick", faultname.LoseRequest, faultname.LoseReply,
	faultname.Disconnect, "reconnect", faultname.Crash, faultname.Pause, "catchup", faultname.Reap,
	faultname.Reorder, faultname.Abandon}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// IsFault reports whether the event kind is a fault.
func (k Kind) IsFault() bool {
	switch k {
	case LoseRequest, LoseReply, Disconnect, Crash, Pause, Reap, Reorder, Abandon:
		return true
	}
	return false
}

// Event is one schedulable step.
type Event struct {
	Kind   Kind
	Client int // index, for client events; follower index for CatchUp
}

func (e Event) String() string {
	switch e.Kind {
	case Tick, Reap:
		return e.Kind.String()
	case CatchUp:
		return fmt.Sprintf("catchup f%d", e.Client)
	}
	return fmt.Sprintf("%s c%d", e.Kind, e.Client+1)
}
