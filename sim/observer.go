package sim

import (
	"github.com/zksim/zksim/internal/fphash"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/simhook"
)

// observer is told the run's typed observations as they happen (see
// simhook.Observer). It is not sim's API: its requests and replies are
// internal/proto records; the module's workloads (package harness)
// record their histories through it, added by simhook.AddObserver.
type observer = simhook.Observer[*Client]

// The hooks through which the module reaches what sim keeps from its
// users (see package simhook).
func init() {
	simhook.AddObserver = func(s, o any) {
		s.(*Sim).obs = append(s.(*Sim).obs, o.(observer))
	}
	simhook.Bubble = func(s any, wrap func(run func())) { s.(*Sim).wrap = wrap }
	simhook.KeepWorkers = keepWorkers
	simhook.OnTick = func(s any, f func()) { s.(*Sim).onTick = append(s.(*Sim).onTick, f) }
	simhook.Await = func(c any, cond func() bool, on any) {
		w, _ := on.(*watch)
		c.(*Client).await(cond, w)
	}
	simhook.Fired = func(w any) bool { return w.(*watch).fired }
	simhook.Wire = func(c any) { c.(*Client).wire = true }
	simhook.ClientOf = func(of any) any {
		if cn, ok := of.(*conn); ok {
			return cn.c
		}
		return nil
	}
	simhook.Live = func(c any) bool {
		cl := c.(*Client)
		return cl.connected && !cl.paused && !cl.closed && cl.state != stCrashed
	}
	simhook.Told = func(c any, what []byte) {
		if cl := c.(*Client); cl.sim.hashing {
			cl.fold(func(h *fphash.Hash, _ *machine.Renaming) {
				h.Uint(6)
				h.Bytes(what)
			})
		}
	}
	simhook.FaultKinds = faultTable
	simhook.IsFault = func(ev any) bool { return ev.(Event).kind.isFault() }
	simhook.CoverageRuns = func(c any) int { return c.(*Coverage).runs }
	simhook.CoverageRows = func(c any, indent string, labelWidth, width int) string {
		return c.(*Coverage).rows(indent, labelWidth, width)
	}
}
