package sim

import (
	"fmt"
	"math/bits"
)

// The event cache. A step's options are a function of the clients'
// states, and a step changes few of them: the client it acts on, the
// clients a notification reaches, the clients time changes when it
// passes (a pause that ends, a wait), and every client when the ensemble
// acts on its own (a catch-up, the reaper). So each client's events are
// kept, a few bits of one dense array, and worked out again only for the
// clients a step touched, rather than read from every Client at every
// step: that reading, a few hundred instructions, was about a tenth of
// a step's CPU time.

// clientEvents is what a client was last found to have.
type clientEvents struct {
	normal uint8    // its normal events, a bit each by place in normalOrder
	faults faultSet // the faults its state allows, budgets aside
	live   bool     // neither done nor crashed
	stale  bool     // in s.dirty: to be worked out again before it is read
}

// normalOrder is the order in which listNormal lists one client's
// events: a seed's choices, and so its schedules, depend on it.
var normalOrder = [...]evKind{evSend, evRecv, evWake, evReconnect}

// The bits of clientEvents.normal, by place in normalOrder.
const (
	nSend uint8 = 1 << iota
	nRecv
	nWake
	nReconnect
)

// nthKind is the k-th event, from 0, of a client whose normal events are
// set, in normalOrder: the one a pick of k among them chooses.
func nthKind(set uint8, k int) evKind {
	for ; k > 0; k-- {
		set &= set - 1
	}
	return normalOrder[bits.TrailingZeros8(set)]
}

// events works out what c's state allows now: the one statement of
// when each event and each fault can happen to a client. A wait on a
// wire program's condition stays stale: the condition may turn on
// anything.
func (c *Client) events() clientEvents {
	st := c.state
	if st >= stDone { // done or crashed
		return clientEvents{}
	}
	e := clientEvents{live: true}
	if c.paused {
		return e
	}
	if st == stCall {
		e.normal |= nSend
		if c.connected {
			e.faults |= fLoseRequest | fLoseReply
		}
	}
	if k := len(c.inbox); k > 0 {
		e.normal |= nRecv
		if k > 1 && c.inbox[k-1].isReply {
			e.faults |= fReorder
		}
	}
	if st >= stWait { // stWait or stReady (the call only when it may be)
		if c.ready() {
			e.normal |= nWake
		}
		e.stale = st == stWait && c.call.kind == callAwait
	}
	if !c.closed {
		e.faults |= fCrash | fAbandon
		if c.connected {
			e.faults |= fDisconnect | fPause
		} else {
			e.normal |= nReconnect
		}
	}
	return e
}

// touch marks client i's events to be worked out again.
func (s *Sim) touch(i int) {
	if e := &s.evs[i]; !e.stale {
		e.stale = true
		s.dirty = append(s.dirty, i)
	}
}

// touchAll marks every client's events to be worked out again: time
// passed, or the ensemble acted on its own.
func (s *Sim) touchAll() {
	for i := range s.evs {
		s.touch(i)
	}
}

// refresh works out again the events of the clients touched since it
// last ran.
func (s *Sim) refresh() {
	if len(s.dirty) > 0 {
		s.refreshDirty()
	}
	if checkEvents {
		s.checkEvents()
	}
}

// refreshDirty is refresh's work when some client was touched.
func (s *Sim) refreshDirty() {
	dirty := s.dirty
	s.dirty = s.dirty[:0] // what stays stale is kept, in place
	for _, i := range dirty {
		e, was := s.clients[i].events(), s.evs[i]
		if e.live != was.live {
			s.live += liveDelta(e.live)
		}
		s.nNormal += bits.OnesCount8(e.normal) - bits.OnesCount8(was.normal)
		s.evs[i] = e
		if e.stale {
			s.dirty = append(s.dirty, i)
		}
	}
}

func liveDelta(now bool) int {
	if now {
		return 1
	}
	return -1
}

// checkEvents panics if a client's cached events are not what it has:
// a change to a client that no touch followed. Built in with the tag
// zksimcheck, which CI's -race pass and long tests set.
func (s *Sim) checkEvents() {
	live, n := 0, 0
	for i, c := range s.clients {
		was := s.evs[i]
		if was.live {
			live++
		}
		n += bits.OnesCount8(was.normal)
		if was.stale { // a wait on a condition
			continue
		}
		if now := c.events(); now != was {
			panic(fmt.Sprintf("sim: invariant: step %d: %s's cached events are %+v, not %+v: a change with no touch",
				s.step, c.name, was, now))
		}
	}
	if live != s.live || n != s.nNormal {
		panic(fmt.Sprintf("sim: invariant: step %d: %d clients live and %d events, counted %d and %d",
			s.step, live, n, s.live, s.nNormal))
	}
	if b := s.budgeted(); b != s.budgetSet {
		panic(fmt.Sprintf("sim: invariant: step %d: faults with budget %08b, kept as %08b", s.step, b, s.budgetSet))
	}
}
