package harness

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/internal/traceview"
	"github.com/zksim/zksim/linearize"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zkapi"
)

// A violation's cause is told from what the run knows beyond the
// checkers' histories: the lock nodes the clients created and who or
// what removed them (story, from the observer), and the clients' session
// events (lives, from the trace: a traced run, as every reported one
// is). The checkers word a plain cause; explain replaces it where the
// story tells more.

// story is the lock nodes of a run: who created each, on which session,
// and when and by whom it went.
type story struct {
	nodes []nodeRec
}

// nodeRec is one node a client created.
type nodeRec struct {
	path    string
	client  int
	session int64
	created int
	gone    int   // the step it was deleted; 0: still there
	zxid    int64 // the deletion's zxid
	by      int   // the client whose delete removed it; byExpiry: its session's expiry
	// ephemeral: it goes with its session (a persistent one outlives it).
	ephemeral bool
}

// byExpiry marks a node that went with its session.
const byExpiry = -1

func (st *story) create(client int, session int64, path string, step int, ephemeral bool) {
	st.nodes = append(st.nodes, nodeRec{path: path, client: client, session: session, created: step, ephemeral: ephemeral})
}

func (st *story) remove(by int, path string, step int, zxid int64) {
	if n := st.live(path); n != nil {
		n.gone, n.zxid, n.by = step, zxid, by
	}
}

func (st *story) expire(session int64, step int, zxid int64) {
	for i := range st.nodes {
		if n := &st.nodes[i]; n.session == session && n.gone == 0 && n.ephemeral {
			n.gone, n.zxid, n.by = step, zxid, byExpiry
		}
	}
}

// live is the node at path not yet deleted, or nil.
func (st *story) live(path string) *nodeRec {
	for i := len(st.nodes) - 1; i >= 0; i-- {
		if n := &st.nodes[i]; n.path == path && n.gone == 0 {
			return n
		}
	}
	return nil
}

// nodeOf is the node a hold held: the latest its client created in dir,
// on any of its sessions, that was there when the hold began.
func (st *story) nodeOf(h linearize.Hold, dir string) *nodeRec {
	for i := len(st.nodes) - 1; i >= 0; i-- {
		n := &st.nodes[i]
		if n.client == h.Client && n.created <= int(h.Start) && (n.gone == 0 || n.gone >= int(h.Start)) &&
			strings.HasPrefix(n.path, dir+"/") {
			return n
		}
	}
	return nil
}

// queued says whether client has a node in dir now.
func (st *story) queued(client int, dir string) bool {
	for _, n := range st.nodes {
		if n.client == client && n.gone == 0 && strings.HasPrefix(n.path, dir+"/") {
			return true
		}
	}
	return false
}

// lastBefore is the latest node client created in dir before step,
// whatever became of it, or nil.
func (st *story) lastBefore(client int, dir string, step int) *nodeRec {
	for i := len(st.nodes) - 1; i >= 0; i-- {
		if n := &st.nodes[i]; n.client == client && n.created <= step && strings.HasPrefix(n.path, dir+"/") {
			return n
		}
	}
	return nil
}

// deletedBy is the node a change (zxid) deleted, or nil.
func (st *story) deletedBy(zxid int64) *nodeRec {
	for i := range st.nodes {
		if n := &st.nodes[i]; n.gone > 0 && n.zxid == zxid {
			return n
		}
	}
	return nil
}

// created records a node c's request created at path (for a sequential
// node, the name the server gave it), for the orphan checker and the story.
func (run *lockRun) created(c *sim.Client, path string, mode zkapi.CreateMode, zxid int64) {
	run.made.add(c, path, mode, zxid)
	run.story.create(c.Index(), c.Session(), path, run.s.Step(), proto.IsEphemeral(mode))
}

// multi records the creates and deletes of c's multi r that succeeded
// with reply rep; its deletes go to the story only (run.deletes and the
// give-ups are those of plain deletes).
func (run *lockRun) multi(c *sim.Client, r proto.Multi, rep *proto.Reply) {
	for i, op := range r.Ops {
		switch o := op.(type) {
		case zkapi.CreateOp:
			if i < len(rep.Results) {
				run.created(c, rep.Results[i].Path, o.Mode, rep.Zxid)
			}
		case zkapi.DeleteOp:
			run.story.remove(c.Index(), o.Path, run.s.Step(), rep.Zxid)
		}
	}
}

// life is a client's session event, read from the trace.
type life struct {
	step    int
	client  int // 0-based
	kind    string
	session int64 // abandon, expired: the session given up
}

// Kinds of life.
const (
	lifeAbandon = "abandon" // the client gave its session up
	lifeExpired = "expired" // the client learned its session had expired
	lifeCrash   = "crash"
	lifePause   = "pause"
)

var (
	abandonLine = regexp.MustCompile(`^abandon c([0-9]+) -> session (0x[0-9a-f]+) left to expire`)
	expiredLine = regexp.MustCompile(`^reconnect c([0-9]+) -> session (0x[0-9a-f]+) expired`)
	faultLine   = regexp.MustCompile(`^(crash|pause) c([0-9]+)\b`)
)

// lives reads the clients' session events from a trace.
func lives(trace []string) []life {
	var out []life
	for _, raw := range trace {
		l := traceview.ParseLine(raw)
		if m := abandonLine.FindStringSubmatch(l.Text); m != nil {
			out = append(out, life{l.Step, atoi(m[1]) - 1, lifeAbandon, hexID(m[2])})
		} else if m := expiredLine.FindStringSubmatch(l.Text); m != nil {
			out = append(out, life{l.Step, atoi(m[1]) - 1, lifeExpired, hexID(m[2])})
		} else if m := faultLine.FindStringSubmatch(l.Text); m != nil {
			out = append(out, life{l.Step, atoi(m[2]) - 1, m[1], 0})
		}
	}
	return out
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func hexID(s string) int64 { n, _ := strconv.ParseInt(strings.TrimPrefix(s, "0x"), 16, 64); return n }

// givenUp is the first event at which client gave session up (it
// abandoned it, or learned it had expired), or nil.
func givenUp(ls []life, client int, session int64) *life {
	for i := range ls {
		if l := &ls[i]; l.client == client && l.session == session && (l.kind == lifeAbandon || l.kind == lifeExpired) {
			return l
		}
	}
	return nil
}

// lastOf is client's last event of kind in steps [from, to], or nil.
func lastOf(ls []life, client int, kind string, from, to int) *life {
	var out *life
	for i := range ls {
		if l := &ls[i]; l.client == client && l.kind == kind && l.step >= from && l.step <= to {
			out = l
		}
	}
	return out
}

// givingUp words a give-up: "giving that session up" or "learning that
// session had expired".
func givingUp(l *life) string {
	if l.kind == lifeExpired {
		return "learning that session had expired"
	}
	return "giving that session up"
}

// name is a client's name, "c1".
func name(client int) string { return "c" + strconv.Itoa(client+1) }

// nodeWords names a node with its owner: "c2's /locks/l/x-3 (session 0x5)".
func nodeWords(n *nodeRec) string {
	return fmt.Sprintf("%s's %s (session %#x)", name(n.client), n.path, n.session)
}

// removal words how a node went: "c3 deleted it at step 35", "session
// 0x5 expired at step 38, deleting it".
func removal(n *nodeRec) string {
	if n.by == byExpiry {
		return fmt.Sprintf("session %#x expired at step %d, deleting it", n.session, n.gone)
	}
	return fmt.Sprintf("%s deleted it at step %d", name(n.by), n.gone)
}

// change words the change a zxid made to a lock node, for a wake-up: "c4
// deleted its /locks/l/x-5 at step 35", "the expiry of c4's session 0x7
// at step 38 deleted /locks/l/x-5"; "" if it deleted no node the story
// knows.
func (st *story) change(zxid int64) (string, int) {
	n := st.deletedBy(zxid)
	switch {
	case n == nil:
		return "", 0
	case n.by == byExpiry:
		return fmt.Sprintf("the expiry of %s's session %#x at step %d (deleting %s)", name(n.client), n.session, n.gone, n.path), n.gone
	case n.by == n.client:
		return fmt.Sprintf("%s's delete of its %s at step %d", name(n.by), n.path, n.gone), n.gone
	}
	return fmt.Sprintf("%s's delete of %s at step %d", name(n.by), nodeWords(n), n.gone), n.gone
}

// faultLinks lists the faults that hit client (0-based) in steps [from,
// to], from the trace: {15, "lose-request c2 exists /barriers/b"}. The
// fault kinds' trace lines start with their names; a learned expiry is a
// reconnect's.
func faultLinks(trace []string, client, from, to int) []check.Link {
	var links []check.Link
	for _, raw := range trace {
		l := traceview.ParseLine(raw)
		if l.Step < from || l.Step > to || l.Client != client+1 || !isFault(l.Text) {
			continue
		}
		text, _, _ := strings.Cut(l.Text, " -> ")
		links = append(links, check.Link{Step: l.Step, What: text, Root: true})
	}
	return links
}

// faultKinds are the first words of the trace lines of faults.
var faultKinds = []string{"lose-request", "lose-reply", "disconnect", "crash", "pause", "abandon", "reorder"}

func isFault(text string) bool {
	first, _, _ := strings.Cut(text, " ")
	return slices.Contains(faultKinds, first) || expiredLine.MatchString(text)
}

// explainFaults adds to a violation's cause the faults that hit the
// clients its chain names between its first and last steps: what a
// barrier's checkers cannot see.
func explainFaults(v *check.Violation, trace []string) {
	if len(v.Chain) == 0 || len(trace) == 0 {
		return
	}
	from, to := v.Chain[0].Step, v.Chain[len(v.Chain)-1].Step
	var clients []int
	for _, l := range v.Chain {
		if m := detailClient.FindStringSubmatch(l.What); m != nil && !slices.Contains(clients, atoi(m[1])-1) {
			clients = append(clients, atoi(m[1])-1)
		}
	}
	slices.Sort(clients)
	var hits []check.Link
	for _, c := range clients {
		hits = append(hits, faultLinks(trace, c, from, to)...)
	}
	hits = checkers.SortChain(hits)
	parts := make([]string, len(hits))
	for i, l := range hits {
		parts[i] = fmt.Sprintf("%s at step %d", l.What, l.Step)
	}
	v.Chain = checkers.SortChain(append(hits, v.Chain...))
	if len(parts) == 0 {
		v.Cause += fmt.Sprintf("; no fault hit %s between steps %d and %d", clientWords(clients), from, to)
		return
	}
	v.Cause += "; in between: " + strings.Join(parts, ", ")
}
