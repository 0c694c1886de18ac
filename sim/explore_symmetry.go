package sim

import (
	"cmp"
	"slices"

	"github.com/zksim/zksim/internal/machine"
)

// maxSymmetric is the most clients a search treats as interchangeable: a
// state is hashed under every permutation of them (24 at 4).
const maxSymmetric = 4

// symmetry is what a search that treats the clients as interchangeable
// keeps: every permutation of them, the renaming each makes (client name
// tokens, and session ids as their owner and the owner's count of
// sessions before), and, per run, whose each session is.
//
// The clients run the same program and differ in their name, their
// session ids and their first server. A state and its mirror image (the
// same state with the clients' parts exchanged) have mirror futures when
// the program treats names and session ids as opaque (it compares them
// only for equality), so the search keeps one fingerprint for both: the
// least of the state's hashes under every permutation. The server is
// state (it moves with the client), and the session-id order is not: the
// one thing it decides, the order of sessions expiring in the same tick,
// is left out (see Bounds.Symmetry).
type symmetry struct {
	perms   [][]int // perms[k][i]: the position client i takes; perms[0] is the identity
	renames []machine.Renaming
	s       *Sim
	owner   map[int64]int64 // session id -> client<<16 | sessions of it before
	count   []int           // per client: its sessions seen
	last    []int64         // per client: its session at the last registration
}

func newSymmetry(clients int) *symmetry {
	y := &symmetry{perms: permutations(clients)}
	y.renames = make([]machine.Renaming, len(y.perms))
	for k, pos := range y.perms {
		r := &y.renames[k]
		for i, p := range pos {
			r.Names['1'-'0'+i] = byte('1' + p)
		}
		r.Session = func(id int64) int64 { return y.rename(id, pos) }
	}
	return y
}

// permutations lists every permutation of n in lexicographic order.
func permutations(n int) [][]int {
	var out [][]int
	var rec func(p []int, used int)
	rec = func(p []int, used int) {
		if len(p) == n {
			out = append(out, slices.Clone(p))
			return
		}
		for i := range n {
			if used&(1<<i) == 0 {
				rec(append(p, i), used|1<<i)
			}
		}
	}
	rec(make([]int, 0, n), 0)
	return out
}

// reset starts a run.
func (y *symmetry) reset(s *Sim) {
	y.s, y.owner = s, map[int64]int64{}
	n := len(y.perms[0])
	y.count, y.last = make([]int, n), make([]int64, n)
}

// register notes the clients' current sessions; it runs after every step,
// so that every session is known by the end of the step that opened it.
func (y *symmetry) register() {
	for i, c := range y.s.clients {
		if c.model.ID != y.last[i] {
			y.last[i] = c.model.ID
			y.own(c.model.ID)
		}
	}
}

// own returns whose session id is (client<<16 | its sessions before);
// false if no client's. A session is registered when first seen, at the
// latest at the end of the step that opened it, while it is its client's
// current one.
func (y *symmetry) own(id int64) (int64, bool) {
	if o, ok := y.owner[id]; ok {
		return o, true
	}
	for i, c := range y.s.clients {
		if c.model.ID == id {
			o := int64(i)<<16 | int64(y.count[i])
			y.count[i]++
			y.owner[id] = o
			return o, true
		}
	}
	return 0, false
}

// rename is the id session id hashes as under the permutation pos: its
// owner's position and its rank among the owner's sessions, kept apart
// from real ids by the sign.
func (y *symmetry) rename(id int64, pos []int) int64 {
	o, ok := y.own(id)
	if !ok {
		return id
	}
	return -(1 + (int64(pos[int(o>>16)])<<16 | o&0xffff))
}

// canonical is the state's symmetric fingerprint, the least of its
// hashes under every permutation, and the permutation that gave it (the
// first, if several did).
func (y *symmetry) canonical() (uint64, int) {
	best, arg := uint64(0), -1
	for k, pos := range y.perms {
		if fp := y.s.fingerprintAs(&y.renames[k], pos, k); arg < 0 || fp < best {
			best, arg = fp, k
		}
	}
	return best, arg
}

// order sorts a step's options into the canonical order of the state
// whose canonical permutation is pos: client events by the client's
// position, each block (events, catch-ups, a tick owed to spinning
// clients, their sends (owes), faults, reaping, an early tick) in place.
// The option first in it is the default schedule's, so that a state and
// its mirror image have mirror options at equal costs.
func order(opts []Event, pos []int, owes func(Event) bool) {
	first, spin := opts[0], slices.ContainsFunc(opts, owes)
	slices.SortStableFunc(opts, func(a, b Event) int {
		return cmp.Or(cmp.Compare(block(a, first, spin, owes), block(b, first, spin, owes)),
			cmp.Compare(clientKey(a, pos), clientKey(b, pos)))
	})
}

// block ranks an option's block: a tick comes first when it is the
// first option (only time can advance, or only spinning clients can),
// before the spinning clients' sends when there are some, else last.
func block(ev, first Event, spin bool, owes func(Event) bool) int {
	switch {
	case ev.kind == evTick && first.kind == evTick:
		return 0
	case ev.kind == evTick && spin:
		return 3
	case ev.kind == evTick:
		return 7
	case ev.kind == evCatchUp:
		return 2
	case ev.kind == evReap:
		return 6
	case ev.kind.isFault():
		return 5
	case owes(ev):
		return 4
	}
	return 1
}

func clientKey(ev Event, pos []int) int {
	if isGlobal(ev.kind) {
		return ev.client
	}
	return pos[ev.client]
}
