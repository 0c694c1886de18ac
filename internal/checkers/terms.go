package checkers

import (
	"cmp"
	"fmt"
	"github.com/zksim/zksim/check"
	"slices"

	"github.com/zksim/zksim/linearize"
)

// Terms checks the terms of an election's leaderships: the holds (not
// reads) whose holder took a token at acquisition, the token being the
// term, and the writes the protected resource accepted with them.
//
//   - At most one leader per term: two leaderships with one term are a
//     SharedTerm violation, since a fenced resource cannot tell their
//     writes apart.
//   - Terms grow from one leadership to the next, in the order the
//     leaderships began (Start): a term below one that began earlier is a
//     TermOrder violation, since the resource would refuse the newer
//     leader, or take the older one's writes.
//   - Fenced writes from old terms are refused: a write sent (Call) after
//     a leadership with a higher term began, and accepted, is a Fencing
//     violation. Tokens already reports an accepted write whose token is
//     not above the one accepted before it; Terms reports only the stale
//     writes that Tokens cannot see, those accepted before the newer
//     leader wrote anything.
func Terms(holds []linearize.Hold, accepted []Accepted) []check.Violation {
	ls := leaderships(holds)
	vs := sharedTerms(ls)
	vs = append(vs, termOrder(ls)...)
	return append(vs, staleWrites(ls, accepted)...)
}

// leaderships are the holds with a term, by Start (then client), so that
// the verdict does not depend on the order holds were recorded in.
func leaderships(holds []linearize.Hold) []linearize.Hold {
	var ls []linearize.Hold
	for _, h := range holds {
		if h.HasToken && h.Mode != linearize.Read {
			ls = append(ls, h)
		}
	}
	slices.SortStableFunc(ls, func(a, b linearize.Hold) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Client, b.Client))
	})
	return ls
}

// sharedTerms reports every leadership whose term an earlier one had.
func sharedTerms(ls []linearize.Hold) []check.Violation {
	first := map[int64]linearize.Hold{}
	var vs []check.Violation
	for _, h := range ls {
		a, ok := first[h.Token]
		if !ok {
			first[h.Token] = h
			continue
		}
		vs = append(vs, check.Violation{Class: check.SharedTerm, Detail: fmt.Sprintf(
			"two leaders in term %d: c%d from step %d and c%d from step %d",
			h.Token, a.Client+1, a.Start, h.Client+1, h.Start), Steps: Blame(int(a.Start), int(h.Start)),
			Cause: fmt.Sprintf("c%d took term %d at step %d, which c%d had taken at step %d: the term was not unique",
				h.Client+1, h.Token, h.Start, a.Client+1, a.Start),
			Chain: SortChain([]check.Link{leads(a), leads(h)})})
	}
	return vs
}

// termOrder reports every leadership whose term is below the highest
// term begun before it.
func termOrder(ls []linearize.Hold) []check.Violation {
	var vs []check.Violation
	for i, h := range ls {
		if i == 0 {
			continue
		}
		top := slices.MaxFunc(ls[:i], func(a, b linearize.Hold) int { return cmp.Compare(a.Token, b.Token) })
		if h.Token < top.Token {
			vs = append(vs, check.Violation{Class: check.TermOrder, Detail: fmt.Sprintf(
				"c%d led in term %d from step %d, after c%d led in term %d from step %d",
				h.Client+1, h.Token, h.Start, top.Client+1, top.Token, top.Start), Steps: Blame(int(top.Start), int(h.Start)),
				Cause: fmt.Sprintf("c%d took term %d at step %d, below the term %d c%d had taken at step %d",
					h.Client+1, h.Token, h.Start, top.Token, top.Client+1, top.Start),
				Chain: SortChain([]check.Link{leads(top), leads(h)})})
		}
	}
	return vs
}

// staleWrites reports accepted writes sent after a leadership with a
// higher term began, among those whose token is above every token
// accepted before them (the others are Tokens' to report).
func staleWrites(ls []linearize.Hold, accepted []Accepted) []check.Violation {
	writes := slices.Clone(accepted)
	slices.SortStableFunc(writes, func(a, b Accepted) int { return cmp.Compare(a.Zxid, b.Zxid) })
	var vs []check.Violation
	for i, w := range writes {
		if w.Call <= 0 || (i > 0 && w.Token <= slices.MaxFunc(writes[:i], byToken).Token) {
			continue
		}
		j := slices.IndexFunc(ls, func(h linearize.Hold) bool { return h.Token > w.Token && h.Start < w.Call })
		if j < 0 {
			continue
		}
		h := ls[j]
		vs = append(vs, check.Violation{Class: check.Fencing, Detail: fmt.Sprintf(
			"stale leader: c%d wrote with term %d at step %d, after c%d began term %d at step %d",
			w.Client+1, w.Token, w.Step, h.Client+1, h.Token, h.Start), Steps: Blame(int(h.Start), int(w.Step)),
			Cause: fmt.Sprintf("c%d wrote with term %d at step %d, after c%d began term %d at step %d: the write was not fenced",
				w.Client+1, w.Token, w.Step, h.Client+1, h.Token, h.Start),
			Chain: SortChain([]check.Link{leads(h), {Step: int(w.Step), What: fmt.Sprintf("c%d wrote with the older term %d", w.Client+1, w.Token)}})})
	}
	return vs
}

// leads is the link of a leadership's start.
func leads(h linearize.Hold) check.Link {
	return check.Link{Step: int(h.Start), What: fmt.Sprintf("c%d led in term %d", h.Client+1, h.Token)}
}

func byToken(a, b Accepted) int { return cmp.Compare(a.Token, b.Token) }
