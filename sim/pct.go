package sim

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
// change point that client first drops below everyone.
func (s *Sim) pickPCT(normal []Event) Event {
	top := func() int {
		best := -1
		for _, e := range normal {
			if e.Kind != CatchUp && (best < 0 || s.prio[e.Client] > s.prio[best]) {
				best = e.Client
			}
		}
		return best
	}
	best := top()
	if s.changes[s.step] && best >= 0 {
		low := 0
		for _, p := range s.prio {
			low = min(low, p)
		}
		s.prio[best] = low - 1
		best = top()
	}
	var mine []Event
	for _, e := range normal {
		if best < 0 || (e.Kind != CatchUp && e.Client == best) {
			mine = append(mine, e)
		}
	}
	return mine[s.chooser.Choose(len(mine), "event")]
}
