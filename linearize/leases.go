package linearize

import (
	"cmp"
	"slices"
	"sort"

	"github.com/anishathalye/porcupine"
)

// overLeased returns n+1 holds (not reads) on one lock that are held at
// one instant, or nil. Locks are taken in path order, so the holds
// reported are the same for the same history.
//
// Read holds take no lease and are not counted. The spans are open: holds
// that touch (one's End is another's Start) can be ordered release first,
// and a hold of zero length counts only at its instant, beside the holds
// that span it, never beside another of zero length at the same instant
// (those can follow each other).
func overLeased(holds []Hold, n int) []Hold {
	byLock := map[string][]Hold{}
	var locks []string
	for _, h := range holds {
		if h.Mode == Read {
			continue
		}
		if _, ok := byLock[h.Lock]; !ok {
			locks = append(locks, h.Lock)
		}
		byLock[h.Lock] = append(byLock[h.Lock], h)
	}
	sort.Strings(locks)
	for _, l := range locks {
		if over := sweep(byLock[l], n); over != nil {
			return over
		}
	}
	return nil
}

// Kinds of leaseEvent, in the order they are taken at one instant.
const (
	evEnd   = iota // a hold ends: its lease is free for what follows
	evPoint        // a hold of zero length: held at this instant alone
	evStart        // a hold begins, to last past this instant
)

type leaseEvent struct {
	at   int64
	kind int
	hold int
}

// sweep walks one lock's holds in time order, keeping those held, and
// returns the first set of n+1 held at once.
func sweep(hs []Hold, n int) []Hold {
	evs := make([]leaseEvent, 0, 2*len(hs))
	for i, h := range hs {
		if h.End >= 0 && h.End == h.Start {
			evs = append(evs, leaseEvent{h.Start, evPoint, i})
			continue
		}
		evs = append(evs, leaseEvent{h.Start, evStart, i})
		if h.End >= 0 {
			evs = append(evs, leaseEvent{h.End, evEnd, i})
		}
	}
	slices.SortFunc(evs, func(a, b leaseEvent) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.kind, b.kind), cmp.Compare(a.hold, b.hold))
	})
	var held []int
	for _, e := range evs {
		switch e.kind {
		case evEnd:
			held = slices.DeleteFunc(held, func(i int) bool { return i == e.hold })
		case evPoint:
			if len(held) >= n {
				return pick(hs, append(slices.Clone(held[:n]), e.hold))
			}
		case evStart:
			if held = append(held, e.hold); len(held) > n {
				return pick(hs, held)
			}
		}
	}
	return nil
}

// pick returns the holds at idx, ordered by (Start, End).
func pick(hs []Hold, idx []int) []Hold {
	out := make([]Hold, len(idx))
	for k, i := range idx {
		out[k] = hs[i]
	}
	slices.SortStableFunc(out, byStart)
	return out
}

type semState struct {
	holders string // the holding clients, sorted, a client once per lease it holds
}

// semaphoreModel is a counting semaphore of n leases per lock path:
// an acquire that is not a read takes one of them, its release gives it
// back; reads take none and always succeed.
func semaphoreModel(n int) porcupine.Model {
	m := lockModel
	m.Init = func() interface{} { return semState{} }
	m.Step = func(state, input, _ interface{}) (bool, interface{}) { return stepSemaphore(n, state, input) }
	m.Equal = func(a, b interface{}) bool { return a.(semState) == b.(semState) }
	m.DescribeState = func(state interface{}) string {
		if s := state.(semState); s.holders != "" {
			return "held by " + s.holders
		}
		return "free"
	}
	return m
}

func stepSemaphore(n int, state, input interface{}) (bool, interface{}) {
	s, in := state.(semState), input.(lockInput)
	if in.mode == Read {
		return true, s
	}
	holders := decodeReaders(s.holders)
	if in.acquire {
		if len(holders) >= n {
			return false, s
		}
		return true, semState{encodeReaders(append(holders, in.client))}
	}
	i := slices.Index(holders, in.client)
	if i < 0 {
		return false, s
	}
	return true, semState{encodeReaders(slices.Delete(holders, i, i+1))}
}

// modelFor is the porcupine model of a lock of n leases: a mutex or
// read/write lock for n <= 1, a semaphore above.
func modelFor(n int) porcupine.Model {
	if n <= 1 {
		return lockModel
	}
	return semaphoreModel(n)
}
