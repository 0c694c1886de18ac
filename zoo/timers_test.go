package zoo_test

import (
	"fmt"
	"testing"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zoo"
)

// The timer exhibits' scenarios. On the scripted server a predecessor
// can give up at any moment, so gaveUpBeforeWatch shows liveAbsence's and
// electAbsence's defect without a timer; the systematic search, where it
// takes one, is tested in package harness (explore_timers_test.go).
func init() {
	scenarios[zoo.NameLiveAbsence] = []scenario{gaveUpBeforeWatch()}
	electionScenarios[zoo.NameElectAbsence] = []scenario{gaveUpBeforeWatch()}
	scenarios[zoo.NameSemBusyCount] = []scenario{competitorCreatesAfterCount()}
}

// competitorCreatesAfterCount (bug scenario 11): one lease of two is
// held; a comes, and between its count and its create a competitor that
// counted at the same time creates the same node first. Broken if a then
// holds beside the holder and the competitor: three leases of two.
func competitorCreatesAfterCount() scenario {
	return scenario{name: "competitor-creates-after-count", class: check.MaxLeases,
		run: func(t *testing.T, e *env, r recipe.Lock) (bool, string) {
			e.holder(r.Acquire, "h0")
			x, a := e.prepare("x"), e.prepare("a")
			e.once(func(m *machine.Machine, sid int64, req proto.Request) (fakezk.Fault, bool) {
				cr, ok := req.(proto.Create)
				if sid != a.sid || !ok || cr.Mode != zkapi.EphemeralSequential {
					return fakezk.Deliver, false
				}
				m.Do(x.sid, cr)
				return fakezk.Deliver, true
			})
			e.run(a, r.Acquire)
			if e.untilWaiting(a) {
				a.cancel()
				e.join(a)
				return false, "a waits: the competitor's lease counts"
			}
			if _, err := e.join(a); err != nil {
				return false, fmt.Sprintf("a refused: %v", err)
			}
			return true, fmt.Sprintf("a holds beside h0 and the competitor: 3 leases of %d", r.MaxHolders())
		}}
}
