package sim

import (
	"github.com/zksim/zksim/internal/fphash"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/internal/zkclient"
	"github.com/zksim/zksim/zkapi"
)

// fingerprint hashes the state of a run that decides its future: the
// ensemble, virtual time, the fault and tick budgets used, the pending
// virtual deadlines, and each client: its connection, session, pending
// call, messages in flight, watches, and the history of what its program
// was told (which, the program being deterministic, stands for the
// program's own state). Step numbers and the trace are not state.
func (s *Sim) fingerprint() uint64 { return s.fingerprintAs(nil, nil, -1) }

// fingerprintAs is the fingerprint of the state with its clients renamed
// by r, client i moved to position pos[i], and each client's history as
// hashed under renaming k (-1, with r and pos nil: the state as it is).
func (s *Sim) fingerprintAs(r *machine.Renaming, pos []int, k int) uint64 {
	var h fphash.Hash
	h.Uint(s.m.FingerprintAs(r))
	h.Int(s.now)
	h.Int(int64(s.quiet))
	h.Int(int64(s.ticks))
	for _, n := range s.used {
		h.Int(int64(n))
	}
	var timers fphash.Hash
	for _, t := range s.timers {
		var th fphash.Hash
		th.Int(int64(at(pos, t.client)))
		th.Int(t.at)
		th.Bool(t.ctx.Err() != nil)
		timers.Add(th.Sum())
	}
	h.Uint(timers.Sum())
	if pos == nil {
		for _, c := range s.clients {
			h.Uint(c.fingerprint(nil, -1))
		}
		return h.Sum()
	}
	var byPos [maxSymmetric]*Client
	for i, c := range s.clients {
		byPos[pos[i]] = c
	}
	for _, c := range byPos[:len(s.clients)] {
		h.Uint(c.fingerprint(r, k))
	}
	return h.Sum()
}

// at is client i's position under pos (nil: its own).
func at(pos []int, i int) int {
	if pos == nil {
		return i
	}
	return pos[i]
}

func (c *Client) fingerprint(r *machine.Renaming, k int) uint64 {
	var h fphash.Hash
	h.Uint(uint64(c.state))
	h.Bool(c.connected)
	h.Bool(c.paused)
	h.Bool(c.closed)
	h.Int(c.pauseEnd)
	r.HashSession(&h, c.model.ID)
	h.Int(int64(c.model.Replica))
	h.Int(c.model.LastZxid)
	if c.rewatchNotes > 0 {
		h.Int(int64(c.rewatchNotes))
		h.Int(c.rewatch.Zxid)
	}
	r.HashSession(&h, c.sess.ID)
	h.Int(int64(c.sess.State))
	h.Uint(c.sess.Seq)
	h.Uint(c.hist.sum(k))
	if c.owed { // hashed only when set: other states hash as they did
		h.Bool(true)
	}
	if cl := c.call; cl != nil && (c.state == stWait || c.state == stReady || c.state == stCall) {
		h.Uint(uint64(cl.kind))
		h.Int(cl.until)
		h.Uint(cl.seq)
		r.HashSession(&h, cl.session)
		fphash.HashErr(&h, cl.err)
		if cl.w != nil {
			h.Int(int64(cl.w.id))
		}
		if cl.pw != nil {
			h.Int(int64(cl.pw.id))
		}
	}
	for _, m := range c.inbox {
		h.Bool(m.isReply)
		if m.isReply {
			r.HashReply(&h, c.reply)
		} else {
			r.HashNotification(&h, m.note)
		}
	}
	var table fphash.Hash
	c.model.Watches.Each(func(path string, kind zkclient.WatchKind, w *watch) {
		var e fphash.Hash
		r.HashString(&e, path)
		e.Uint(uint64(kind))
		e.Int(int64(w.id))
		table.Add(e.Sum())
	})
	h.Uint(table.Sum())
	for _, w := range c.made {
		h.Bool(w.fired)
		h.Bool(w.woke)
		h.Bool(w.stray)
		h.Int(w.zxid)
		r.HashEvent(&h, w.ev)
	}
	if len(c.pmade) > 0 { // none unless the program uses AddWatch: hashes stay as they were
		h.Uint(c.persistentFingerprint(r))
	}
	return h.Sum()
}

// persistentFingerprint hashes the client's persistent watches: which
// handles its table holds, and each handle's queued events and end.
func (c *Client) persistentFingerprint(r *machine.Renaming) uint64 {
	var h, table fphash.Hash
	c.model.Persistent.Each(func(path string, recursive bool, p *pwatch) {
		var e fphash.Hash
		r.HashString(&e, path)
		e.Bool(recursive)
		e.Int(int64(p.id))
		table.Add(e.Sum())
	})
	h.Uint(table.Sum())
	for _, p := range c.pmade {
		h.Int(int64(len(p.queue)))
		for _, n := range p.queue {
			r.HashNotification(&h, n)
		}
		fphash.HashErr(&h, p.end)
	}
	return h.Sum()
}

// history is a client's history hash (see Client.hist): one, or with
// symmetry one per renaming of the clients, so that a state can be hashed
// as any of its mirror images.
type history struct {
	one fphash.Hash
	all []fphash.Hash
}

// sum is the hash under renaming k; -1: without symmetry.
func (hs *history) sum(k int) uint64 {
	if k < 0 {
		return hs.one.Sum()
	}
	if hs.all == nil {
		var zero fphash.Hash
		return zero.Sum()
	}
	return hs.all[k].Sum()
}

// fold adds what f hashes to c's history, under every renaming when the
// run is explored with symmetry.
func (c *Client) fold(f func(h *fphash.Hash, r *machine.Renaming)) {
	y := c.sim.sym
	if y == nil {
		f(&c.hist.one, nil)
		return
	}
	if c.hist.all == nil {
		c.hist.all = make([]fphash.Hash, len(y.renames))
	}
	for k := range y.renames {
		f(&c.hist.all[k], &y.renames[k])
	}
}

// foldErr adds the end of a wait (tag) and its error to c's history.
func (c *Client) foldErr(tag uint64, err error) {
	c.fold(func(h *fphash.Hash, _ *machine.Renaming) {
		h.Uint(tag)
		fphash.HashErr(h, err)
	})
}

// foldSession adds a session snapshot the program is given, and err, to
// its history when the run is explored.
func (c *Client) foldSession(err error) {
	if !c.sim.hashing {
		return
	}
	c.fold(func(h *fphash.Hash, r *machine.Renaming) {
		h.Uint(3)
		r.HashSession(h, c.sess.ID)
		h.Int(int64(c.sess.State))
		h.Uint(c.sess.Seq)
		fphash.HashErr(h, err)
	})
}

// foldAnswer adds the answer to a workload question to c's history.
func (c *Client) foldAnswer(yes bool) {
	c.fold(func(h *fphash.Hash, _ *machine.Renaming) {
		h.Uint(4)
		h.Bool(yes)
	})
}

// foldEvent adds what a Watch.Wait returned to c's history.
func (c *Client) foldEvent(ev zkapi.Event, zxid int64, err error) {
	c.fold(func(h *fphash.Hash, r *machine.Renaming) {
		h.Uint(5)
		r.HashEvent(h, ev)
		h.Int(zxid)
		fphash.HashErr(h, err)
	})
}

// foldReply adds a request's reply and error to c's history.
func (c *Client) foldReply(rep proto.Reply, err error) {
	c.fold(func(h *fphash.Hash, r *machine.Renaming) {
		h.Uint(1)
		r.HashReply(h, rep)
		fphash.HashErr(h, err)
	})
}
