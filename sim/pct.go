package sim

import (
	"math/bits"
	"slices"
)

func (s *Sim) initPCT() {
	n := len(s.clients)
	s.prio = make([]int, n)
	for i := range s.prio { // a random permutation, as priorities d..d+n-1
		j := s.chooser.Choose(i+1, "priority")
		s.prio[i] = s.prio[j]
		s.prio[j] = s.cfg.PCTDepth + i
	}
	s.changes = s.changes[:0]
	for range s.cfg.PCTDepth - 1 {
		s.changes = append(s.changes, 1+s.chooser.Choose(s.cfg.PCTHorizon, "change point"))
	}
	slices.Sort(s.changes)
}

// changeAt reports whether the step is a change point. Steps only go
// forward, so the points behind it are dropped as it passes them.
func (s *Sim) changeAt(step int) bool {
	for len(s.changes) > 0 && s.changes[0] < step {
		s.changes = s.changes[1:]
	}
	return len(s.changes) > 0 && s.changes[0] == step
}

// pickPCT runs the highest-priority client with an enabled event; at a
// change point that client first drops below everyone. It runs at every
// step, so it reads the event cache (evcache.go) rather than a list: the
// chosen client's events are the bits of its entry, in listNormal's
// order.
func (s *Sim) pickPCT() Event {
	best := s.topClient()
	if s.changeAt(s.step) && best >= 0 {
		s.prio[best] = min(0, slices.Min(s.prio)) - 1
		best = s.topClient()
	}
	if best < 0 { // only followers have events: any of them
		s.listNormal()
		return s.normal[s.chooser.Choose(len(s.normal), "event")]
	}
	set := s.evs[best].normal
	return Event{kind: nthKind(set, s.chooser.Choose(bits.OnesCount8(set), "event")), client: best}
}

// topClient is the highest-priority client with an enabled event, or -1
// when only followers have one.
func (s *Sim) topClient() int {
	best := -1
	for i, e := range s.evs {
		if e.normal != 0 && (best < 0 || s.prio[i] > s.prio[best]) {
			best = i
		}
	}
	return best
}
