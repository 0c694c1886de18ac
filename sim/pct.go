package sim

import "slices"

func (s *Sim) initPCT() {
	n := len(s.clients)
	s.prio = make([]int, n)
	for i := range s.prio { // a random permutation, as priorities d..d+n-1
		j := s.chooser.Choose(i+1, "priority")
		s.prio[i] = s.prio[j]
		s.prio[j] = s.cfg.PCTDepth + i
	}
	s.changes = map[int]bool{}
	for range s.cfg.PCTDepth - 1 {
		s.changes[1+s.chooser.Choose(s.cfg.PCTHorizon, "change point")] = true
	}
}

// pickPCT runs the highest-priority client with an enabled event; at a
// change point that client first drops below everyone. It runs at every
// step, so it allocates nothing: it counts the chosen client's events and
// walks to the chosen one instead of collecting them.
func (s *Sim) pickPCT(normal []Event) Event {
	best := s.topClient(normal)
	if s.changes[s.step] && best >= 0 {
		s.prio[best] = min(0, slices.Min(s.prio)) - 1
		best = s.topClient(normal)
	}
	n := 0
	for _, e := range normal {
		if runs(e, best) {
			n++
		}
	}
	k := s.chooser.Choose(n, "event")
	for _, e := range normal {
		if runs(e, best) {
			if k == 0 {
				return e
			}
			k--
		}
	}
	panic("sim: invariant: a chooser returned an index outside [0, n)")
}

// topClient is the highest-priority client with an enabled event, or -1
// when only followers have one.
func (s *Sim) topClient(normal []Event) int {
	best := -1
	for _, e := range normal {
		if e.kind != evCatchUp && (best < 0 || s.prio[e.client] > s.prio[best]) {
			best = e.client
		}
	}
	return best
}

// runs reports whether e may run when best is the top client: its events
// only, or every event when no client has one.
func runs(e Event, best int) bool {
	return best < 0 || (e.kind != evCatchUp && e.client == best)
}
