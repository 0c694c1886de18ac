package machine

// slab hands out small arrays of T, many in one allocation: a run makes
// a listing for nearly every getChildren, results for every multi, a
// copy of the data of every write and a room for every session, each
// small, and one allocation apiece was a fifth of the Machine's.
// Each array it hands out has no room past its length, so an append by
// its holder moves it elsewhere instead of writing into the next one;
// the slab's array lives as long as any of them does.
type slab[T any] struct {
	free []T
}

// take returns n zero Ts of their own; chunk is how many the slab
// allocates at once. An n over a quarter of that is allocated alone, so
// that little of a chunk is ever left unused. Not inlined: the requests
// that take from a slab keep their code small (measured: fewer
// instruction-cache misses).
//
//go:noinline
func (s *slab[T]) take(n, chunk int) []T {
	if n == 0 {
		return []T{} // empty, not nil: a leaf's listing, data set empty
	}
	if n > len(s.free) {
		if n > chunk/4 {
			return make([]T, n)
		}
		s.free = make([]T, chunk)
	}
	out := s.free[:n:n]
	s.free = s.free[n:]
	return out
}

// How many of each the Machine's slabs allocate at once: about what a
// standard simulated run makes of them in all, or a good part of it.
const (
	listChunk    = 32
	resultChunk  = 8
	dataChunk    = 128
	sessionChunk = 4
)

// cloneData is a copy of the caller's data, nil if it is nil (a node's
// data is null then, not empty).
func (m *Machine) cloneData(data []byte) []byte {
	if data == nil {
		return nil
	}
	c := m.data.take(len(data), dataChunk)
	copy(c, data)
	return c
}
