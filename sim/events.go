package sim

import (
	"errors"
	"fmt"

	"github.com/zksim/zksim/internal/simhook"

	"github.com/zksim/zksim/zkapi"
)

// What each event does to the ensemble and the clients.

// apply does what ev does. The events of nearly every step (send,
// recv, wake, tick) are handled here; the rest go out of line to
// applyRare, so that a step runs through fewer lines of code: the
// instruction cache, not the instruction count, bounds a step's time.
func (s *Sim) apply(ev Event) {
	switch ev.kind {
	case evSend:
		c := s.clients[ev.client]
		s.covSend(c)
		c.owed = false // sent without the time owed to it: a deviation
		s.send(c, false)
	case evRecv:
		s.recv(s.clients[ev.client])
	case evWake:
		c := s.clients[ev.client]
		s.covWake(c)
		c.finishWait()
		s.noteEvent(ev)
		c.run()
	case evTick:
		s.applyTick() // touches the clients time may change (tick)
		return
	default:
		s.applyRare(ev)
		if ev.kind == evReap || ev.kind == evCatchUp {
			s.touchAll()
			return
		}
	}
	s.touch(ev.client)
}

// applyTick advances time one tick, or in Flat mode to the moment
// something is due.
func (s *Sim) applyTick() {
	n := int64(1)
	if s.cfg.Flat { // on to the moment something is due
		n = max(1, s.due())
	}
	for ; n > 0; n-- {
		s.tick()
	}
}

// applyRare applies the events apply leaves out: faults, reconnects,
// catch-ups and the reaper.
//
//go:noinline
func (s *Sim) applyRare(ev Event) {
	if ev.kind.isFault() {
		s.used[ev.kind]++
		s.faultsLeft--
		s.budgetSet = s.budgeted()
	}
	var c *Client
	if ev.kind != evReap && ev.kind != evCatchUp {
		c = s.clients[ev.client]
	}
	s.covEvent(ev, c)
	if ev.kind == evLoseRequest || ev.kind == evLoseReply {
		c.owed = false // sent without the time owed to it: a deviation
	}
	switch ev.kind {
	case evLoseRequest:
		if !s.cfg.NoTrace {
			s.notef("%s %v", ev, c.call.req)
		}
		c.drop()
		s.resumeWith(c, zkapi.ErrConnectionLoss)
	case evLoseReply:
		s.send(c, true)
	case evReorder:
		last := c.inbox[len(c.inbox)-1]
		copy(c.inbox[1:], c.inbox[:len(c.inbox)-1])
		c.inbox[0] = last
		s.noteEvent(ev)
	case evDisconnect:
		s.noteEvent(ev)
		c.drop()
	case evReconnect:
		c.reconnect()
	case evCrash:
		s.noteEvent(ev)
		if c.connected {
			s.m.Detach(c.model.ID)
		}
		c.connected = false
		c.state = stCrashed
	case evPause:
		c.paused, c.pauseEnd = true, s.now+int64(s.cfg.Faults.PauseTicks)
		s.m.Detach(c.model.ID)
		if !s.cfg.NoTrace {
			s.notef("%s for %d ticks", ev, s.cfg.Faults.PauseTicks)
		}
	case evAbandon:
		s.abandon(c)
	case evCatchUp:
		s.m.CatchUp(ev.client, s.m.Zxid())
		s.collect()
		s.noteEvent(ev)
	case evReap:
		z := s.m.Zxid()
		s.m.ReapContainers()
		s.cov.reaped += int(s.m.Zxid() - z) // a transaction a container
		s.collect()
		s.noteEvent(ev)
	default:
		panic(fmt.Sprintf("sim: invariant: an event of kind %v is applied", ev.kind))
	}
}

func (s *Sim) tick() {
	s.now++
	z0 := s.m.Zxid()
	s.noteExpiries(s.m.Tick(), z0)
	s.collect()
	kept := s.timers[:0]
	for _, t := range s.timers {
		if t.at <= s.now {
			if t.ctx.Err() == nil {
				s.covDeadline(t.client)
			}
			t.cancel()
			s.epoch++
		} else {
			kept = append(kept, t)
		}
	}
	s.timers = kept
	for _, f := range s.onTick {
		f()
	}
	for i, c := range s.clients {
		c.owed = false
		// What time can change of a client's events: a pause's end, and
		// a wait's (a sleep, a deadline); notifications touch their own.
		if c.paused && s.now >= c.pauseEnd {
			// The client resumes after its pause to a dead connection.
			c.paused = false
			c.drop()
			s.touch(i)
		} else if c.state == stWait {
			s.touch(i)
		}
	}
	s.note("tick")
}

// noteExpiries tells the observers of the sessions that expired in a
// tick: Machine.Tick expires them in session order, one transaction each.
func (s *Sim) noteExpiries(expired []int64, z0 int64) {
	s.cov.expired += len(expired)
	for i, id := range expired {
		for _, o := range s.obs {
			o.Expired(id, z0+int64(i)+1)
		}
	}
}

// send applies c's pending request; with lose, the reply is then lost.
func (s *Sim) send(c *Client, lose bool) {
	cl := c.call
	if !c.connected {
		s.sendUnconnected(c)
		return
	}
	r := &c.reply
	c.model.SendTo(s.m, cl.req, r) // read by recv, or dropped with its connection
	s.collect()
	for _, o := range s.obs {
		o.Applied(c, cl.req, r)
	}
	if !s.cfg.NoTrace {
		s.traceSend(c, lose)
	}
	if lose || r.Err != nil {
		s.sendFailed(c, lose)
		return
	}
	c.inbox = append(c.inbox, message{isReply: true})
	c.state = stAwaitReply
}

// sendUnconnected ends a send on a dropped connection.
//
//go:noinline
func (s *Sim) sendUnconnected(c *Client) {
	if !s.cfg.NoTrace {
		s.notef("send %s %v -> not connected", c.name, c.call.req)
	}
	s.resumeWith(c, zkapi.ErrConnectionLoss)
}

// traceSend traces a send and its reply.
//
//go:noinline
func (s *Sim) traceSend(c *Client, lose bool) {
	label := "send"
	if lose {
		label = "lose-reply"
	}
	s.notef("%s %s %v -> %v", label, c.name, c.call.req, c.reply)
}

// sendFailed handles a send whose reply is lost (lose) or an error: a
// lost connection or an expired session end the call at once; any other
// error is a reply like any other.
//
//go:noinline
func (s *Sim) sendFailed(c *Client, lose bool) {
	err := c.reply.Err
	switch {
	case lose || errors.Is(err, zkapi.ErrConnectionLoss):
		c.drop()
		s.resumeWith(c, zkapi.ErrConnectionLoss)
	case errors.Is(err, zkapi.ErrSessionExpired):
		c.learnExpired()
		s.resumeWith(c, zkapi.ErrSessionExpired)
	default:
		c.inbox = append(c.inbox, message{isReply: true})
		c.state = stAwaitReply
	}
}

func (s *Sim) recv(c *Client) {
	if !c.inbox[0].isReply {
		s.recvNote(c)
		return
	}
	c.popInbox()
	if !s.cfg.NoTrace {
		s.notef("recv %s reply", c.name)
	}
	c.model.Saw(c.reply.Zxid)
	c.run()
}

// popInbox takes the first message off c's inbox, keeping the array:
// inboxes are short.
func (c *Client) popInbox() {
	n := copy(c.inbox, c.inbox[1:])
	c.inbox = c.inbox[:n]
}

// recvNote delivers the notification first in c's inbox.
//
//go:noinline
func (s *Sim) recvNote(c *Client) {
	note := c.inbox[0].note
	c.popInbox()
	if !s.cfg.NoTrace {
		s.notef("recv %s %v", c.name, note.Event)
	}
	s.covNotified(note.Event.Type)
	for _, o := range s.obs {
		if n, ok := o.(simhook.Notifier[*Client]); ok {
			n.Notified(c, note)
		}
	}
	for _, w := range c.model.Watches.Take(note.Event) {
		w.fire(note.Event, note.Zxid)
	}
	if c.rewatchNotes > 0 {
		if c.rewatchNotes--; c.rewatchNotes == 0 {
			c.model.Rewatched(c.rewatch)
		}
	}
	for _, p := range c.model.Persistent.Match(note.Event) {
		p.queue = append(p.queue, note)
	}
}

// resumeWith ends c's pending call with err and runs c.
func (s *Sim) resumeWith(c *Client, err error) {
	c.call.err = err
	c.run()
}

// drop breaks c's connection: the server forgets its watches and queued
// messages; a reply in flight is lost.
func (c *Client) drop() {
	c.sim.covDrop(c)
	if c.connected {
		c.sim.m.Detach(c.model.ID)
	}
	c.connected, c.inbox, c.rewatchNotes = false, c.inbox[:0], 0
	c.setState(zkapi.StateDisconnected)
	if c.state == stAwaitReply || c.wire && c.state == stCall {
		c.call.err = zkapi.ErrConnectionLoss
		c.state = stReady
	}
}

// openSession opens a new session on the replica the client's model
// names.
func (c *Client) openSession() {
	replica := c.model.Replica
	info, err := c.sim.m.CreateSession(replica, c.sim.cfg.SessionTimeoutMs)
	if err != nil {
		panic(fmt.Sprintf("sim: invariant: replica %d exists: %v", replica, err))
	}
	c.model.Opened(info.ID)
	c.connected = true
	c.setState(zkapi.StateConnected)
	c.sim.covSession(c, sessionOpened)
}

// reconnect resumes the session (re-registering watches) or learns that
// it expired; the client's policy picks the replica.
func (c *Client) reconnect() {
	s := c.sim
	err := c.model.Reconnect(func(replica int) error {
		return s.m.Attach(c.model.ID, replica, c.model.LastZxid)
	})
	if err != nil {
		if !s.cfg.NoTrace {
			s.notef("reconnect %s -> session %#x expired", c.name, c.model.ID)
		}
		c.learnExpired()
		return
	}
	c.connected = true
	c.setState(zkapi.StateConnected)
	s.covSession(c, sessionReconnected)
	if sw, ok := c.model.Rewatch(); ok {
		s.cov.rewatched++
		r := c.model.Send(s.m, sw)
		s.collect()
		if c.rewatch, c.rewatchNotes = r, len(c.inbox); c.rewatchNotes == 0 {
			c.model.Rewatched(r)
		}
	}
	if !s.cfg.NoTrace {
		s.notef("reconnect %s -> session %#x", c.name, c.model.ID)
	}
}

// abandon: c gives up its session on its own, as a client-side session
// timeout does (Curator's injected expiry replaces the handle): the
// connection drops, the program sees its session expire and its watches
// end, and it goes on under a new session. The server was told nothing:
// the old session is only detached, and it and its ephemerals live on
// until it expires in virtual time.
func (s *Sim) abandon(c *Client) {
	old := c.model.ID
	c.drop()
	c.learnExpired()
	if !s.cfg.NoTrace {
		s.notef("abandon %s -> session %#x left to expire, new session %#x", c.name, old, c.model.ID)
	}
}

// learnExpired reports the old session expired, ends its watches, and
// opens a new session as go-zookeeper does.
func (c *Client) learnExpired() {
	c.old = append(c.old, c.model.ID)
	states, watches, persistent := c.model.Expired(c.connected)
	c.sim.covSession(c, sessionExpired)
	c.sim.cov.ended += len(watches) + len(persistent)
	for _, st := range states {
		c.setState(st)
	}
	for _, w := range watches {
		w.fire(zkapi.Event{Type: zkapi.EventNotWatching, Path: w.path, Err: zkapi.ErrSessionExpired}, -1)
	}
	for _, p := range persistent {
		p.finish(zkapi.ErrSessionExpired)
	}
	c.inbox = c.inbox[:0]
	c.openSession()
}
