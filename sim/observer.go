package sim

import "github.com/zksim/zksim/internal/simhook"

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
	simhook.FaultKinds = faultTable
	simhook.IsFault = func(ev any) bool { return ev.(Event).kind.isFault() }
	simhook.CoverageRuns = func(c any) int { return c.(*Coverage).runs }
	simhook.CoverageRows = func(c any, indent string, labelWidth, width int) string {
		return c.(*Coverage).rows(indent, labelWidth, width)
	}
}
