package check

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/anishathalye/porcupine"
)

// Leases checks a counting semaphore of n leases per lock: whether the
// holds can be ordered so that no more than n that are not reads are held
// at once. Read holds take no lease and are not counted. For n <= 1 it is
// Locks, exactly (a semaphore of one lease is a mutex).
//
// Like Locks it decides without search: the history is linearizable
// against the porcupine model of a semaphore per path (an acquire taking
// effect between its call and its return, a release at its call) if and
// only if, each hold taken from its Start to its End, no instant sees more
// than n of them. The spans are open: holds that touch (one's End is
// another's Start) can be ordered release first, and a hold of zero length
// counts only at its instant, beside the holds that span it, never beside
// another of zero length at the same instant (those can follow each
// other). A property test checks this against porcupine.
func Leases(holds []Hold, n int) LockReport {
	if n <= 1 {
		return Locks(holds)
	}
	over := overLeased(holds, n)
	if over == nil {
		return LockReport{ok: true, leases: n}
	}
	lock := over[0].Lock
	var who []string
	var starts []int
	for _, h := range over {
		who = append(who, fmt.Sprintf("c%d (%d-%s)", h.Client+1, h.Start, endString(h)))
		starts = append(starts, int(h.Start))
	}
	detail := fmt.Sprintf("%s held %s at once, more than its %d leases", strings.Join(who, ", "), lock, n)
	failed := slices.DeleteFunc(slices.Clone(holds), func(h Hold) bool { return h.Lock != lock })
	last := over[len(over)-1]
	var chain []Link
	for _, h := range over {
		chain = append(chain, acquired(h))
	}
	v := Violation{Class: MaxLeases, Detail: detail, Steps: Blame(starts...), Chain: SortChain(chain),
		Cause: OverlapCause(last, over[:len(over)-1])}
	return LockReport{Violations: []Violation{v}, failed: failed, leases: n}
}

// overLeased returns n+1 holds (not reads) on one lock that are held at
// one instant, or nil. Locks are taken in path order, so the holds
// reported are the same for the same history.
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

// Overlapping returns the holds the violation of Leases(holds, n) names,
// by Start: the two that Locks found overlapping (n <= 1), or the n+1
// held at once; nil if there is none. A harness words their cause.
func Overlapping(holds []Hold, n int) []Hold {
	if n > 1 {
		return overLeased(holds, n)
	}
	if a, b, found := conflict(holds); found {
		return []Hold{a, b}
	}
	return nil
}
