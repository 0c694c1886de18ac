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
// step, so it allocates nothing: it counts the chosen client's events and
// walks to the chosen one instead of collecting them.
func (s *Sim) pickPCT(normal []Event) Event {
	best := s.topClient(normal)
	if s.changeAt(s.step) && best >= 0 {
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
