package sim

import (
	"fmt"
)

// A Chooser picks the next event: an index in [0, n). It is the only
// source of nondeterminism in a run.
type Chooser interface {
	Choose(n int, what string) int
}

// ChooserFunc adapts a function (for example a rapid draw) to a Chooser.
type ChooserFunc func(n int, what string) int

// Choose implements Chooser.
func (f ChooserFunc) Choose(n int, what string) int { return f(n, what) }

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

// Recorder wraps a Chooser and records its choices, so a run can be
// replayed or shrunk as a decision list.
type Recorder struct {
	C         Chooser
	Decisions []int
}

// Choose implements Chooser.
func (r *Recorder) Choose(n int, what string) int {
	i := r.C.Choose(n, what)
	r.Decisions = append(r.Decisions, i)
	return i
}

// Decisions replays a decision list, each taken modulo the number of
// choices; past its end it chooses 0. Under shrinking, a shorter list and
// smaller numbers mean a simpler schedule: choice 0 is never a fault and
// never a tick.
type Decisions struct {
	List []int
	next int
}

// Choose implements Chooser.
func (d *Decisions) Choose(n int, _ string) int {
	i := 0
	if d.next < len(d.List) {
		i = d.List[d.next]
	}
	d.next++
	if i < 0 {
		i = -i
	}
	return i % n
}

func (d *Decisions) String() string { return fmt.Sprint(d.List) }
