package sim

import (
	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/fphash"
)

// fingerprint hashes the state of a run that decides its future: the
// ensemble, virtual time, the fault and tick budgets used, the pending
// virtual deadlines, and each client: its connection, session, pending
// call, messages in flight, watches, and the history of what its program
// was told (which, the program being deterministic, stands for the
// program's own state). Step numbers and the trace are not state.
func (s *Sim) fingerprint() uint64 {
	var h fphash.Hash
	h.Uint(s.m.Fingerprint())
	h.Int(s.now)
	h.Int(int64(s.quiet))
	h.Int(int64(s.ticks))
	for _, n := range s.used {
		h.Int(int64(n))
	}
	var timers fphash.Hash
	for _, t := range s.timers {
		var th fphash.Hash
		th.Int(int64(t.client))
		th.Int(t.at)
		th.Bool(t.ctx.Err() != nil)
		timers.Add(th.Sum())
	}
	h.Uint(timers.Sum())
	for _, c := range s.clients {
		h.Uint(c.fingerprint())
	}
	return h.Sum()
}

func (c *Client) fingerprint() uint64 {
	var h fphash.Hash
	h.Uint(uint64(c.state))
	h.Bool(c.connected)
	h.Bool(c.paused)
	h.Bool(c.closed)
	h.Int(c.pauseEnd)
	h.Int(c.session)
	h.Int(int64(c.server))
	h.Int(c.lastZxid)
	h.Int(c.sess.ID)
	h.Int(int64(c.sess.State))
	h.Uint(c.sess.Seq)
	h.Uint(c.hist.Sum())
	if cl := c.call; cl != nil && (c.state == stWait || c.state == stReady || c.state == stCall) {
		h.Uint(uint64(cl.kind))
		h.Int(cl.until)
		h.Uint(cl.seq)
		h.Int(cl.session)
		fakezk.HashErr(&h, cl.err)
		if cl.w != nil {
			h.Int(int64(cl.w.id))
		}
	}
	for _, m := range c.inbox {
		h.Bool(m.isReply)
		if m.isReply {
			fakezk.HashReply(&h, m.reply)
		} else {
			fakezk.HashNotification(&h, m.note)
		}
	}
	var table fphash.Hash
	c.watches.Each(func(path string, k fakezk.WatchKind, w *watch) {
		var e fphash.Hash
		e.String(path)
		e.Uint(uint64(k))
		e.Int(int64(w.id))
		table.Add(e.Sum())
	})
	h.Uint(table.Sum())
	for _, w := range c.made {
		h.Bool(w.fired)
		h.Bool(w.woke)
		h.Bool(w.stray)
		h.Int(w.zxid)
		fakezk.HashEvent(&h, w.ev)
	}
	return h.Sum()
}
