package checkers

import (
	"cmp"
	"fmt"
	"github.com/zksim/zksim/check"
	"slices"
	"strings"
)

// Visit is one Enter call on a double barrier and what followed, in
// logical time (simulator steps); -1 means it did not happen (yet).
type Visit struct {
	Client int
	Arrive int64 // Enter called: the member arrived
	// Entered: Enter returned without error, so the member is inside.
	Entered int64
	// Left: the member is out, as far as the others' Leave is concerned:
	// it called Leave, its Enter failed, or its session ended (it crashed,
	// or was cut off too long), whichever came first.
	Left int64
	// Gone: from then on it cannot count as arrived. For a member that
	// entered, its Leave call or the end of its session; for an Enter
	// that failed, the moment its node was surely gone, which may be
	// after the failure (a session given up lingers until it expires).
	Gone int64
	// Passed: Leave returned without error.
	Passed int64
}

// BarrierEnters checks a double barrier's entries: nobody passes Enter
// before n members have arrived. A member's Enter may return only after
// some moment, between its call and its return, at which n members had
// arrived and none of them was yet gone; it suffices to look at its call
// and at the arrivals after it, the only moments at which the count of
// present members grows. Every other visit present then counts, a
// member's own earlier one included: a lingering node of a session given
// up may be counted by a correct recipe. The check is exact when every
// client takes part in every round (as many clients as members): then
// the members present when a round forms are that round's.
func BarrierEnters(visits []Visit, n int) []check.Violation {
	for _, v := range byEntered(visits) {
		most := present(visits, v.Arrive)
		for _, u := range visits {
			if u.Arrive > v.Arrive && u.Arrive <= v.Entered {
				most = max(most, present(visits, u.Arrive))
			}
		}
		if most < n {
			return []check.Violation{{Class: check.BarrierEnter, Detail: fmt.Sprintf(
				"c%d passed Enter at step %d, but from its call at step %d at most %d of %d members were there at once",
				v.Client+1, v.Entered, v.Arrive, most, n), Steps: Blame(int(v.Arrive), int(v.Entered)),
				Cause: enterCause(visits, v, n),
				Chain: []check.Link{{Step: int(v.Arrive), What: fmt.Sprintf("c%d called Enter", v.Client+1)},
					{Step: int(v.Entered), What: fmt.Sprintf("c%d passed Enter too early", v.Client+1)}}}}
		}
	}
	return nil
}

// enterCause words who was there while v waited in Enter, and when:
// "c3 passed Enter at step 17 with at most 2 of 3 members there at once
// since its call at step 0: c1 from step 0 to step 12, c2 from step 3".
func enterCause(visits []Visit, v Visit, n int) string {
	var there []string
	for _, u := range visits {
		if u == v || u.Arrive > v.Entered || (u.Gone >= 0 && u.Gone <= v.Arrive) {
			continue
		}
		w := fmt.Sprintf("c%d from step %d", u.Client+1, u.Arrive)
		if u.Gone >= 0 {
			w += fmt.Sprintf(" to step %d", u.Gone)
		}
		there = append(there, w)
	}
	s := fmt.Sprintf("c%d passed Enter at step %d with at most %d of %d members there at once since its call at step %d",
		v.Client+1, v.Entered, mostSince(visits, v), n, v.Arrive)
	if len(there) == 0 {
		return s + ": no other member came"
	}
	return s + ": " + strings.Join(there, ", ")
}

// mostSince is the most visits present at once from v's call to its
// entry, as BarrierEnters counts them.
func mostSince(visits []Visit, v Visit) int {
	most := present(visits, v.Arrive)
	for _, u := range visits {
		if u.Arrive > v.Arrive && u.Arrive <= v.Entered {
			most = max(most, present(visits, u.Arrive))
		}
	}
	return most
}

// present counts the visits arrived and not gone at t.
func present(visits []Visit, t int64) int {
	k := 0
	for _, u := range visits {
		if u.Arrive <= t && (u.Gone < 0 || u.Gone > t) {
			k++
		}
	}
	return k
}

// byEntered lists the visits that entered, in the order they did.
func byEntered(visits []Visit) []Visit {
	var in []Visit
	for _, v := range visits {
		if v.Entered >= 0 {
			in = append(in, v)
		}
	}
	slices.SortStableFunc(in, func(a, b Visit) int { return cmp.Compare(a.Entered, b.Entered) })
	return in
}

// EarliestStep is the earlier of two steps, -1 (never) counting as
// latest: when a member counts as gone, from the first of the moments
// that could have ended its visit.
func EarliestStep(a, b int64) int64 {
	switch {
	case a < 0:
		return b
	case b < 0:
		return a
	}
	return min(a, b)
}

// BarrierLeaves checks a double barrier's exits: nobody passes Leave
// before every member of its round has left (called Leave, or lost its
// session). The members of v's round are the other clients' visits that
// arrived before v entered, entered after v arrived, had not left before
// v arrived, and entered before v passed Leave: with every client in
// every round, exactly the rest of v's round while rounds stay apart
// (and if they do not, an earlier verdict says so). A member whose Enter
// reply is still on its way when v passes Leave is not judged.
func BarrierLeaves(visits []Visit) []check.Violation {
	for _, v := range byPassed(visits) {
		for _, w := range visits {
			if w.Client == v.Client || w.Entered < 0 || w.Arrive >= v.Entered || w.Entered <= v.Arrive ||
				w.Entered >= v.Passed || (w.Left >= 0 && w.Left < v.Arrive) {
				continue
			}
			if w.Left < 0 || w.Left > v.Passed {
				left := "had not left"
				if w.Left >= 0 {
					left = fmt.Sprintf("left only at step %d", w.Left)
				}
				return []check.Violation{{Class: check.BarrierLeave, Detail: fmt.Sprintf(
					"c%d passed Leave at step %d, but c%d of its round (entered at step %d) %s",
					v.Client+1, v.Passed, w.Client+1, w.Entered, left), Steps: Blame(int(w.Entered), int(v.Passed)),
					Cause: fmt.Sprintf("c%d passed Leave at step %d while c%d, inside since step %d, %s",
						v.Client+1, v.Passed, w.Client+1, w.Entered, left),
					Chain: SortChain([]check.Link{{Step: int(w.Entered), What: fmt.Sprintf("c%d entered", w.Client+1)},
						{Step: int(v.Passed), What: fmt.Sprintf("c%d passed Leave before c%d left", v.Client+1, w.Client+1)}})}}
			}
		}
	}
	return nil
}

// byPassed lists the visits that passed Leave, in the order they did.
func byPassed(visits []Visit) []Visit {
	var out []Visit
	for _, v := range visits {
		if v.Passed >= 0 {
			out = append(out, v)
		}
	}
	slices.SortStableFunc(out, func(a, b Visit) int { return cmp.Compare(a.Passed, b.Passed) })
	return out
}

// removedWords says when Remove was called, for a cause.
func removedWords(removed int64) string {
	if removed < 0 {
		return "Remove was never called"
	}
	return fmt.Sprintf("Remove was called only at step %d", removed)
}

// SingleWait is one Wait on a single barrier that was raised before the
// call; Return is when Wait returned without error (-1: it did not).
type SingleWait struct {
	Client       int
	Call, Return int64
}

// BarrierWaits checks a single barrier: no Wait returns before Remove
// was called (removed: the step of the first Remove call, -1 if none).
func BarrierWaits(waits []SingleWait, removed int64) []check.Violation {
	for _, w := range waits {
		if w.Return >= 0 && (removed < 0 || w.Return < removed) {
			when := "it never was"
			if removed >= 0 {
				when = fmt.Sprintf("that was at step %d", removed)
			}
			return []check.Violation{{Class: check.BarrierWait, Detail: fmt.Sprintf(
				"c%d passed the single barrier at step %d before Remove was called: %s", w.Client+1, w.Return, when),
				Steps: Blame(int(w.Call), int(w.Return)),
				Cause: fmt.Sprintf("c%d's Wait, called at step %d, returned at step %d with the barrier still up: %s",
					w.Client+1, w.Call, w.Return, removedWords(removed)),
				Chain: []check.Link{{Step: int(w.Call), What: fmt.Sprintf("c%d called Wait", w.Client+1)},
					{Step: int(w.Return), What: fmt.Sprintf("c%d passed the raised barrier", w.Client+1)}}}}
		}
	}
	return nil
}
