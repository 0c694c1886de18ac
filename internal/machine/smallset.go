package machine

import (
	"slices"
)

// smallSetMax is the size past which a smallSet becomes a map.
const smallSetMax = 16

// smallSet is a set that stays a slice while it is small, as a session's
// watches and ephemerals nearly always are (a map for one or two keys is
// most of a simulated session's allocation), and becomes a map past
// smallSetMax, so that a session with thousands stays fast. Its order of
// iteration is not defined: callers sort, or hash it as a set.
type smallSet[K comparable] struct {
	few  []K
	many map[K]struct{}
	top  int // many's peak, for shrunk
}

func (s *smallSet[K]) add(k K) {
	switch {
	case s.many != nil:
		s.many[k] = struct{}{}
		s.top = max(s.top, len(s.many))
	case slices.Contains(s.few, k):
	case len(s.few) < smallSetMax:
		if s.few == nil {
			s.few = make([]K, 0, 2)
		}
		s.few = append(s.few, k)
	default:
		s.many = make(map[K]struct{}, 2*smallSetMax)
		for _, x := range s.few {
			s.many[x] = struct{}{}
		}
		s.many[k] = struct{}{}
		s.few, s.top = nil, len(s.many)
	}
}

func (s *smallSet[K]) remove(k K) {
	if s.many != nil {
		delete(s.many, k)
		if small, ok := shrunk(s.many, &s.top); ok {
			s.many = small
		}
		return
	}
	if i := slices.Index(s.few, k); i >= 0 {
		last := len(s.few) - 1
		s.few[i] = s.few[last]
		var zero K
		s.few[last] = zero
		s.few = s.few[:last]
	}
}

func (s *smallSet[K]) has(k K) bool {
	if s.many != nil {
		_, ok := s.many[k]
		return ok
	}
	return slices.Contains(s.few, k)
}

func (s *smallSet[K]) len() int {
	if s.many != nil {
		return len(s.many)
	}
	return len(s.few)
}

// each calls f for every key, in no defined order; f must not change the
// set.
func (s *smallSet[K]) each(f func(K)) {
	if s.many != nil {
		for k := range s.many {
			f(k)
		}
		return
	}
	for _, k := range s.few {
		f(k)
	}
}

// reset empties the set, keeping the small form's room.
func (s *smallSet[K]) reset() {
	clear(s.few)
	s.few, s.many, s.top = s.few[:0], nil, 0
}
