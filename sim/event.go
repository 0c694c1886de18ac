package sim

import (
	"fmt"

	"github.com/zksim/zksim/internal/faultname"
)

// evKind is the kind of a scheduling event.
type evKind uint8

// Event kinds. Client events name the client they act on.
const (
	evSend        evKind = iota // a pending request reaches the server
	evRecv                      // the next message for a client arrives
	evWake                      // a blocked client's wait can end
	evTick                      // virtual time advances one tickTime
	evLoseRequest               // fault: the request is lost before the server
	evLoseReply                 // fault: the request is applied, its reply lost
	evDisconnect                // fault: the client's connection drops
	evReconnect                 // the client reconnects (or learns of expiry)
	evCrash                     // fault: the client stops for good
	evPause                     // fault: the client stops for PauseTicks
	evCatchUp                   // a follower applies the leader's log
	evReap                      // the container reaper runs
	evReorder                   // illegal fault: a reply overtakes notifications
	evAbandon                   // fault: the client gives up its session for a new one
	numKinds
)

var kindNames = [...]string{"send", "recv", "wake", "tick", faultname.LoseRequest, faultname.LoseReply,
	faultname.Disconnect, "reconnect", faultname.Crash, faultname.Pause, "catchup", faultname.Reap,
	faultname.Reorder, faultname.Abandon}

func (k evKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// isFault reports whether the event kind is a fault.
func (k evKind) isFault() bool {
	switch k {
	case evLoseRequest, evLoseReply, evDisconnect, evCrash, evPause, evReap, evReorder, evAbandon:
		return true
	}
	return false
}

// Event is one schedulable step, as Config.Observe is told it: its
// String is its trace line ("send c1", "lose-reply c2", "tick").
type Event struct {
	kind   evKind
	client int // index, for client events; follower index for evCatchUp
}

// String is the event as a trace line names it.
func (e Event) String() string {
	switch e.kind {
	case evTick, evReap:
		return e.kind.String()
	case evCatchUp:
		return fmt.Sprintf("catchup f%d", e.client)
	}
	return fmt.Sprintf("%s c%d", e.kind, e.client+1)
}
