package harness

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/internal/traceview"
	"github.com/zksim/zksim/linearize"
	"github.com/zksim/zksim/sim"
)

// explain words the cause of each violation of a lock run from its story
// and the clients' session events. The events are read from the trace:
// a run not traced (a search's) tells what its story alone can, without
// give-ups, pauses or lost replies.
func (run *lockRun) explain(r *Report) {
	trace := r.Result.Trace
	ls := lives(trace)
	for _, vs := range [][]check.Violation{r.Violations, r.Notes} {
		for i := range vs {
			v := &vs[i]
			switch v.Class {
			case check.MutualExclusion, check.RWExclusion, check.MaxLeases:
				run.explainOverlap(v, ls, run.h.Holds)
			case check.Fencing:
				run.explainFencing(v, ls)
			case check.SharedTerm, check.TermOrder:
				run.explainTerms(v, ls)
			case check.Herd, check.StaleWakeup:
				run.explainWakes(v, ls)
			case check.Deadlock:
				run.explainDeadlock(v, r, ls)
			case check.NoProgress, check.ClientError:
				explainRunEnd(v, trace)
			}
		}
	}
}

// explainOverlap: who held which node of which session (given up,
// deleted), and how the last one came to acquire beside them.
func (run *lockRun) explainOverlap(v *check.Violation, ls []life, holds []linearize.Hold) {
	hs := linearize.Locks(holds, run.w.Recipe.MaxHolders())
	if len(hs) < 2 {
		return
	}
	b, others := hs[len(hs)-1], hs[:len(hs)-1]
	var parts []string
	var chain []check.Link
	for _, a := range others {
		p, links := run.heldWords(a, b, ls)
		parts, chain = append(parts, p), append(chain, links...)
	}
	p, links := run.acquiredWords(b, others)
	v.Cause = strings.Join(append(parts, p), "; ")
	v.Chain = checkers.SortChain(append(chain, links...))
}

// explainOpen words the cause of the invariant's violation, found while
// the run goes on: from the holds open now and the story so far (the
// trace, and so the give-ups, are the run's end's).
func (run *lockRun) explainOpen(v *check.Violation) {
	var open []linearize.Hold
	for hd := range run.openHolds() {
		open = append(open, hd)
	}
	run.explainOverlap(v, nil, open)
}

// heldWords is how a held beside b: "c1 held /locks/l/x-3 of session 0x5
// after giving that session up at step 31; the session expired at step
// 38, deleting it".
func (run *lockRun) heldWords(a, b linearize.Hold, ls []life) (string, []check.Link) {
	n := run.story.nodeOf(a, a.Lock)
	if n == nil {
		if gone := run.story.lastBefore(a.Client, a.Lock, int(a.Start)); gone != nil {
			return goneWords(a, gone, ls)
		}
		return fmt.Sprintf("%s held %s from step %d", name(a.Client), a.Lock, a.Start),
			[]check.Link{{Step: int(a.Start), What: name(a.Client) + " acquired"}}
	}
	s := fmt.Sprintf("%s held %s of session %#x", name(a.Client), n.path, n.session)
	links := []check.Link{{Step: int(a.Start), What: fmt.Sprintf("%s acquired with %s", name(a.Client), n.path)}}
	if g := givenUp(ls, a.Client, n.session); g != nil && g.step < int(b.Start) {
		s += fmt.Sprintf(" after %s at step %d", givingUp(g), g.step)
		links = append(links, check.Link{Step: g.step, What: fmt.Sprintf("%s gave session %#x up", name(a.Client), n.session), Root: true})
	} else if own := run.holdSession(a); own != 0 && own != n.session {
		s += fmt.Sprintf(" while on session %#x", own)
	}
	if n.gone > 0 && n.gone <= int(b.Start) {
		s += "; " + removal(n)
		links = append(links, deletedLink(n))
	}
	return s, links
}

// deletedLink is the link of a node's deletion: "c5's
// /locks/l/x-3 went with its session's expiry", "c2 deleted c3's
// /locks/l/x-4".
func deletedLink(n *nodeRec) check.Link {
	switch n.by {
	case byExpiry:
		return check.Link{Step: n.gone, What: fmt.Sprintf("%s's %s went with its session's expiry", name(n.client), n.path)}
	case n.client:
		return check.Link{Step: n.gone, What: fmt.Sprintf("%s deleted its %s", name(n.by), n.path)}
	}
	return check.Link{Step: n.gone, What: fmt.Sprintf("%s deleted %s's %s", name(n.by), name(n.client), n.path), Root: true}
}

// goneWords is a hold taken after its node had gone: "c2 acquired at step
// 83 though its /locks/l/x-1 of session 0x2 was gone: the session expired
// at step 45, deleting it, and c2 learned that at step 72".
func goneWords(a linearize.Hold, n *nodeRec, ls []life) (string, []check.Link) {
	s := fmt.Sprintf("%s acquired at step %d though its %s of session %#x was gone: %s",
		name(a.Client), a.Start, n.path, n.session, removal(n))
	links := []check.Link{deletedLink(n), {Step: int(a.Start), What: name(a.Client) + " acquired without its node"}}
	if g := givenUp(ls, a.Client, n.session); g != nil && g.step <= int(a.Start) {
		if g.kind == lifeExpired {
			s += fmt.Sprintf(", and %s learned the session had expired at step %d", name(a.Client), g.step)
		} else {
			s += fmt.Sprintf(", after %s gave the session up at step %d", name(a.Client), g.step)
		}
		links = append(links, check.Link{Step: g.step, What: fmt.Sprintf("%s gave session %#x up", name(a.Client), n.session), Root: true})
	}
	return s, links
}

// holdSession is the session a hold was taken on, 0 if unknown.
func (run *lockRun) holdSession(h linearize.Hold) int64 {
	i := slices.IndexFunc(run.h.Holds, func(x linearize.Hold) bool { return x.Client == h.Client && x.Start == h.Start })
	if i < 0 || i >= len(run.h.sessions) {
		return 0
	}
	return run.h.sessions[i]
}

// acquiredWords is how b came to hold: "c2, woken at step 39 by c4's
// delete of ..., acquired at step 40 with /locks/l/x-5 while c1's
// /locks/l/x-3 was still there".
func (run *lockRun) acquiredWords(b linearize.Hold, others []linearize.Hold) (string, []check.Link) {
	s := name(b.Client)
	var links []check.Link
	if w, ok := run.lastWake(b); ok {
		if what, _ := run.changeWords(w.zxid); what != "" {
			if told(others, run, w.zxid) {
				what = "that deletion"
			} else if n := run.story.deletedBy(w.zxid); n != nil {
				links = append(links, deletedLink(n))
			}
			s += fmt.Sprintf(", woken at step %d by %s,", w.step, what)
			links = append(links, check.Link{Step: w.step, What: name(b.Client) + " woken"})
		}
	}
	s += fmt.Sprintf(" acquired at step %d", b.Start)
	if n := run.story.nodeOf(b, b.Lock); n != nil {
		s += " with " + n.path
	}
	var there []string
	for _, a := range others {
		if n := run.story.nodeOf(a, a.Lock); n != nil && (n.gone == 0 || n.gone > int(b.Start)) {
			there = append(there, fmt.Sprintf("%s's %s", name(a.Client), n.path))
		}
	}
	if len(there) > 0 {
		s += " while " + strings.Join(there, " and ") + " " + wasWere(len(there)) + " still there"
	}
	links = append(links, check.Link{Step: int(b.Start), What: name(b.Client) + " acquired beside the holder"})
	return s, links
}

func wasWere(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}

// told says whether the change zxid is the deletion of one of others'
// nodes, which heldWords has told already.
func told(others []linearize.Hold, run *lockRun, zxid int64) bool {
	for _, a := range others {
		n := run.story.nodeOf(a, a.Lock)
		if n == nil {
			n = run.story.lastBefore(a.Client, a.Lock, int(a.Start))
		}
		if n != nil && n.gone > 0 && n.zxid == zxid {
			return true
		}
	}
	return false
}

// changeWords is story.change, a client's delete worded as its release
// or its give-up.
func (run *lockRun) changeWords(zxid int64) (string, int) {
	what, at := run.story.change(zxid)
	if n := run.story.deletedBy(zxid); n != nil && n.by != byExpiry {
		verb := "release"
		if run.giveUps[zxid] {
			verb = "give-up"
		}
		if n.by == n.client {
			what = fmt.Sprintf("%s's %s of %s at step %d", name(n.by), verb, n.path, n.gone)
		}
	}
	return what, at
}

// lastWake is b's last wake-up during its acquisition.
func (run *lockRun) lastWake(b linearize.Hold) (received, bool) {
	var out received
	found := false
	for _, r := range run.received {
		if r.held == heldNone && r.client == b.Client && int64(r.step) > b.Call && int64(r.step) <= b.Start {
			out, found = r, true
		}
	}
	return out, found
}

// explainFencing tells the stale writer's story before the checker's
// cause: when it took its token, on which session, and what happened to
// that session before it wrote.
func (run *lockRun) explainFencing(v *check.Violation, ls []life) {
	if len(v.Chain) == 0 {
		return
	}
	at := v.Chain[len(v.Chain)-1].Step
	i := slices.IndexFunc(run.h.Accepted, func(a checkers.Accepted) bool { return int(a.Step) == at })
	if i < 0 {
		return
	}
	a := run.h.Accepted[i]
	hi := run.h.writers[i]
	hd, session := run.h.Holds[hi], run.h.sessions[hi]
	s, links := run.sessionWords(hd, session, at, ls)
	v.Cause = s + "; " + v.Cause
	v.Chain = checkers.SortChain(append(v.Chain, append(links,
		check.Link{Step: int(hd.Start), What: fmt.Sprintf("%s took token %d", name(a.Client), a.Token)})...))
}

// sessionWords is what became of a holder's session before step until:
// "c1 held from step 20 on session 0x5, was paused at step 25, and the
// session expired at step 33".
func (run *lockRun) sessionWords(hd linearize.Hold, session int64, until int, ls []life) (string, []check.Link) {
	c := hd.Client
	type event struct {
		step       int
		words, why string // in the sentence; on the chain
	}
	var evs []event
	if p := lastOf(ls, c, lifePause, int(hd.Start), until); p != nil {
		evs = append(evs, event{p.step, name(c) + " was paused", name(c) + " paused"})
	}
	if e, ok := run.expired[session]; ok && int(e.step) < until {
		evs = append(evs, event{int(e.step), "its session expired", fmt.Sprintf("%s's session %#x expired", name(c), session)})
	}
	if g := givenUp(ls, c, session); g != nil && g.step < until {
		if g.kind == lifeExpired {
			evs = append(evs, event{g.step, name(c) + " learned that", fmt.Sprintf("%s learned session %#x had expired", name(c), session)})
		} else {
			evs = append(evs, event{g.step, name(c) + " gave the session up", fmt.Sprintf("%s gave session %#x up", name(c), session)})
		}
	}
	slices.SortStableFunc(evs, func(a, b event) int { return a.step - b.step })
	words := make([]string, len(evs))
	links := make([]check.Link, len(evs))
	for i, e := range evs {
		words[i] = fmt.Sprintf("%s at step %d", e.words, e.step)
		links[i] = check.Link{Step: e.step, What: e.why, Root: i == 0}
	}
	s := fmt.Sprintf("%s held from step %d on session %#x", name(c), hd.Start, session)
	switch len(words) {
	case 0:
		s += ", which was still live"
	case 1:
		s += "; " + words[0]
	default:
		s += "; " + strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
	}
	return s, links
}

// explainTerms tells what had become of the earlier leader's session
// when the later one took its term.
func (run *lockRun) explainTerms(v *check.Violation, ls []life) {
	if len(v.Chain) < 2 {
		return
	}
	first, later := v.Chain[0].Step, v.Chain[len(v.Chain)-1].Step
	i := slices.IndexFunc(run.h.Holds, func(h linearize.Hold) bool { return int(h.Start) == first && h.HasToken })
	if i < 0 {
		return
	}
	s, links := run.sessionWords(run.h.Holds[i], run.h.sessions[i], later, ls)
	v.Cause += "; " + s + fmt.Sprintf(" when the term was taken again at step %d", later)
	v.Chain = checkers.SortChain(append(v.Chain, links...))
}

var changeZxid = regexp.MustCompile(`one change \(zxid ([0-9]+)\)`)

// explainWakes names a herd's (or stale wake-up's) change: which node
// went, by whose delete or which session's expiry; and which of those
// woken waited again.
func (run *lockRun) explainWakes(v *check.Violation, ls []life) {
	m := changeZxid.FindStringSubmatch(v.Detail)
	if m == nil {
		return
	}
	zxid := int64(atoi(m[1]))
	what, at := run.changeWords(zxid)
	if what == "" {
		return
	}
	change := check.Link{Step: at, What: fmt.Sprintf("zxid %d, the change that woke them", zxid), Root: true}
	if n := run.story.deletedBy(zxid); n != nil {
		change = deletedLink(n)
		change.What += fmt.Sprintf(" (zxid %d)", zxid)
		change.Root = true
	}
	if v.Class == check.StaleWakeup {
		change.Root = false
		var links []check.Link
		v.Cause, links = run.staleWords(zxid, what, ls)
		v.Chain = checkers.SortChain(append(append(v.Chain, change), links...))
		return
	}
	v.Chain = checkers.SortChain(append(v.Chain, change))
	named := what + fmt.Sprintf(" (zxid %d)", zxid)
	if strings.HasSuffix(what, ")") {
		named = strings.TrimSuffix(what, ")") + fmt.Sprintf(", zxid %d)", zxid)
	}
	v.Cause = strings.Replace(v.Cause, fmt.Sprintf("one change (zxid %d)", zxid), named, 1)
	if again := run.wokeInVain(zxid); len(again) > 0 {
		v.Cause += "; " + clientWords(again) + " waited again"
	}
}

// staleWords: "c1's release of /locks/l/x-4 at step 128 woke c4 at step
// 134, which gave session 0x4 up at step 63 while acquiring: an extra
// wake-up of a session replaced under a waiter, not a herd".
func (run *lockRun) staleWords(zxid int64, what string, ls []life) (string, []check.Link) {
	var who []string
	var links []check.Link
	for _, r := range run.received {
		if r.held != heldNone || r.zxid != zxid || !r.stale {
			continue
		}
		w := fmt.Sprintf("%s at step %d", name(r.client), r.step)
		if g := run.staleGiveUp(r, zxid, ls); g != nil {
			w += fmt.Sprintf(", which %s at step %d while acquiring and had no node left in the queue", gaveUpWords(g), g.step)
			links = append(links, check.Link{Step: g.step, What: name(r.client) + " " + gaveUpWords(g), Root: true})
		}
		who = append(who, w)
	}
	return what + " woke " + strings.Join(who, "; and ") +
		", beside the waiter that could proceed: a wake-up for a queue place of a replaced session, not a herd", links
}

// staleGiveUp is the give-up that made a wake-up stale: of the session
// whose expiry woke it, or the client's last before the wake-up.
func (run *lockRun) staleGiveUp(r received, zxid int64, ls []life) *life {
	if n := run.story.deletedBy(zxid); n != nil && n.client == r.client && n.by == byExpiry {
		if g := givenUp(ls, r.client, n.session); g != nil {
			return g
		}
	}
	var out *life
	for i := range ls {
		if l := &ls[i]; l.client == r.client && l.step < r.step && (l.kind == lifeAbandon || l.kind == lifeExpired) {
			out = l
		}
	}
	return out
}

// gaveUpWords: "gave session 0x5 up", "learned session 0x5 had expired".
func gaveUpWords(g *life) string {
	if g.kind == lifeExpired {
		return fmt.Sprintf("learned session %#x had expired", g.session)
	}
	return fmt.Sprintf("gave session %#x up", g.session)
}

// wokeInVain lists the clients the change woke that then waited again.
func (run *lockRun) wokeInVain(zxid int64) []int {
	woken := map[int]bool{}
	var out []int
	for _, r := range run.received {
		switch {
		case r.held == heldNone:
			woken[r.client] = r.zxid == zxid
		case r.held == waitsAgain && woken[r.client]:
			if !slices.Contains(out, r.client) {
				out = append(out, r.client)
			}
			woken[r.client] = false
		default:
			woken[r.client] = false
		}
	}
	slices.Sort(out)
	return out
}

// clientWords words clients as "c1, c3 and c4".
func clientWords(cs []int) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = name(c)
	}
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

var watchOn = regexp.MustCompile(`^the watch on (\S+) \(`)

// explainDeadlock words, for each waiter, whose node it waits on and why
// nobody will delete it.
func (run *lockRun) explainDeadlock(v *check.Violation, r *Report, ls []life) {
	var parts []string
	var chain []check.Link
	for _, w := range r.Result.Waits {
		c := atoi(strings.TrimPrefix(w.Client, "c")) - 1
		m := watchOn.FindStringSubmatch(w.On)
		var n *nodeRec
		if m != nil {
			n = run.story.live(m[1])
		}
		if n == nil {
			parts = append(parts, fmt.Sprintf("%s waits on %s", w.Client, w.On))
			continue
		}
		p, links := run.waitWords(c, n, r.Result.Trace, ls)
		parts, chain = append(parts, p), append(chain, links...)
		if len(w.Steps) > 0 {
			chain = append(chain, check.Link{Step: w.Steps[len(w.Steps)-1], What: w.Client + " began to wait"})
		}
	}
	if len(parts) > 0 {
		v.Cause = strings.Join(parts, "; ")
		v.Chain = checkers.SortChain(chain)
	}
}

// waitWords is why the node client waits on stays: "c1 waits on its own
// /locks/l/x-0 (session 0x5), created at step 7 by a create whose reply
// was lost".
func (run *lockRun) waitWords(client int, n *nodeRec, trace []string, ls []life) (string, []check.Link) {
	links := []check.Link{{Step: n.created, What: fmt.Sprintf("%s created the node %s waits on", name(n.client), name(client))}}
	lost := ""
	if at, ok := lostReply(trace, n.created); ok {
		lost = " by a create whose reply was lost"
		links = append(links, check.Link{Step: at, What: fmt.Sprintf("%s lost the create's reply", name(n.client)), Root: true})
	}
	if n.client == client {
		s := fmt.Sprintf("%s waits on its own earlier %s (session %#x), created at step %d%s", name(client), n.path, n.session, n.created, lost)
		if g, ok := run.gaveUpAfter(client, n.created); ok {
			s += fmt.Sprintf(" and left behind when that acquisition gave up at step %d", g)
			links = append(links, check.Link{Step: g, What: name(client) + " gave up, leaving " + n.path, Root: true})
		}
		return s, links
	}
	s := fmt.Sprintf("%s waits on %s, created at step %d%s", name(client), nodeWords(n), n.created, lost)
	if lost != "" {
		s += fmt.Sprintf(", so %s never knew of it", name(n.client))
	}
	switch g := givenUp(ls, n.client, n.session); {
	case g != nil:
		s += fmt.Sprintf("; %s gave that session up at step %d and it has not expired", name(n.client), g.step)
		links = append(links, check.Link{Step: g.step, What: fmt.Sprintf("%s gave session %#x up", name(n.client), n.session), Root: true})
	case n.client < len(run.made.ended) && run.made.ended[n.client] >= 0:
		s += fmt.Sprintf("; %s finished without deleting it, and its session is still open", name(n.client))
	default:
		s += fmt.Sprintf("; %s left it behind and its session is still open", name(n.client))
	}
	return s, links
}

// gaveUpAfter is the step of client's first failed acquisition after
// step.
func (run *lockRun) gaveUpAfter(client, step int) (int, bool) {
	for _, r := range run.received {
		if r.client == client && r.held == gaveUp && r.step > step {
			return r.step, true
		}
	}
	return 0, false
}

// lostReply says whether the request at step lost its reply, and at
// which step: its line says so (lose-reply), or its client's connection
// broke (disconnect, abandon, crash) before the reply came.
func lostReply(trace []string, step int) (int, bool) {
	client := 0
	for _, raw := range trace {
		l := traceview.ParseLine(raw)
		switch {
		case l.Step < step:
		case l.Step == step && client == 0:
			if strings.HasPrefix(l.Text, "lose-reply ") {
				return step, true
			}
			client = l.Client
		case l.Client != client:
		case strings.HasPrefix(l.Text, "recv ") && strings.HasSuffix(l.Text, " reply"):
			return 0, false
		case strings.HasPrefix(l.Text, "disconnect "), strings.HasPrefix(l.Text, "abandon "), strings.HasPrefix(l.Text, "crash "):
			return l.Step, true
		}
	}
	return 0, false
}

var detailClient = regexp.MustCompile(`^c([0-9]+)\b`)

// explainRunEnd words a client error or no progress by the clients'
// last steps: "c1's program ended with that error after its last step,
// 52: recv c1 reply".
func explainRunEnd(v *check.Violation, trace []string) {
	if v.Class == check.ClientError {
		m := detailClient.FindStringSubmatch(v.Detail)
		if m == nil {
			return
		}
		if l, ok := lastLine(trace, atoi(m[1])); ok {
			v.Cause = fmt.Sprintf("c%s's program ended with that error after its last step, %d: %s", m[1], l.Step, l.Text)
			v.Chain = []check.Link{{Step: l.Step, What: "c" + m[1] + "'s last step"}}
		}
		return
	}
	_, who, _ := strings.Cut(v.Detail, ": ")
	var parts []string
	var chain []check.Link
	for _, c := range strings.Split(who, ", ") {
		if l, ok := lastLine(trace, atoi(strings.TrimPrefix(c, "c"))); ok && c != "" {
			parts = append(parts, fmt.Sprintf("%s's last step was %d, %s", c, l.Step, l.Text))
			chain = append(chain, check.Link{Step: l.Step, What: c + "'s last step"})
		}
	}
	if len(parts) > 0 {
		v.Cause = "still going at the step bound: " + strings.Join(parts, "; ")
		v.Chain = checkers.SortChain(chain)
	}
}

// lastLine is the last trace line about client (1-based) that is not a
// wake-up.
func lastLine(trace []string, client int) (traceview.Line, bool) {
	for i := len(trace) - 1; i >= 0; i-- {
		if l := traceview.ParseLine(trace[i]); l.Client == client && !strings.HasPrefix(l.Text, "wake ") {
			return l, true
		}
	}
	return traceview.Line{}, false
}

// explainWaits words a deadlock without a story of nodes (the barrier
// workload): who waited on what, from which step.
func explainWaits(v *check.Violation, waits []sim.Wait) {
	var parts []string
	var chain []check.Link
	for _, w := range waits {
		p := fmt.Sprintf("%s waits on %s", w.Client, w.On)
		if len(w.Steps) > 0 {
			at := w.Steps[len(w.Steps)-1]
			p += fmt.Sprintf(" from step %d", at)
			chain = append(chain, check.Link{Step: at, What: w.Client + " began to wait"})
		}
		parts = append(parts, p)
	}
	if len(parts) > 0 {
		v.Cause = strings.Join(parts, "; ") + ", and no client left can change it"
		v.Chain = checkers.SortChain(chain)
	}
}

// ExplainVerdicts words the causes of a run's own verdicts (res.Verdicts:
// deadlock, no progress, client errors) for a subject with no workload
// of its own, such as user programs: what each waiter waited on from
// which step, and each client's last step, read from the run's trace.
func ExplainVerdicts(res *sim.Result, vs []check.Violation) {
	for i := range vs {
		switch v := &vs[i]; v.Class {
		case check.Deadlock:
			explainWaits(v, res.Waits)
		case check.NoProgress, check.ClientError:
			explainRunEnd(v, res.Trace)
		}
	}
}
