package sim

// A Chooser picks the next event: an index in [0, n). It is the only
// source of nondeterminism in a run.
type Chooser interface {
	Choose(n int, what string) int
}

// seeded is a Chooser driven by splitmix64 from a seed: the same seed
// makes the same choices in any binary.
type seeded struct{ s uint64 }

// NewSeeded returns a seeded Chooser.
func NewSeeded(seed uint64) Chooser { return &seeded{s: seed} }

// Choose implements Chooser.
func (r *seeded) Choose(n int, _ string) int {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return int(z % uint64(n))
}

// Record returns a Chooser that makes c's choices and appends each to
// *into, so that a run can be replayed (Replay) or shrunk (Shrink) as a
// decision list.
func Record(c Chooser, into *[]int) Chooser { return &recorder{c: c, into: into} }

type recorder struct {
	c    Chooser
	into *[]int
}

func (r *recorder) Choose(n int, what string) int {
	i := r.c.Choose(n, what)
	*r.into = append(*r.into, i)
	return i
}

// Replay returns a Chooser that makes the choices of a decision list,
// each taken modulo the number of options; past its end it chooses 0.
// Under shrinking, a shorter list and smaller numbers mean a simpler
// schedule: choice 0 is never a fault and never a tick.
func Replay(decisions []int) Chooser { return &replay{list: decisions} }

type replay struct {
	list []int
	next int
}

func (d *replay) Choose(n int, _ string) int {
	i := 0
	if d.next < len(d.list) {
		i = d.list[d.next]
	}
	d.next++
	if i < 0 {
		i = -i
	}
	return i % n
}
