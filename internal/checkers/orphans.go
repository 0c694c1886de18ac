package checkers

import (
	"cmp"
	"fmt"
	"github.com/zksim/zksim/check"
	"slices"
	"strings"
)

// Leftover is a node a client's request created that the run's end
// finds still there, with what the run knows of who could remove it.
// The caller passes only nodes the recipe does not keep on purpose and
// the server will not remove by itself (see Leftovers).
type Leftover struct {
	Client    int    // who created it, from 0
	Path      string // as created: a sequential node's name is the reply's
	Ephemeral bool
	// Container: a container node, left only if it never had a child
	// (the reaper deletes one that had, once it is empty).
	Container bool
	// Session is the session the create ran on: an ephemeral's owner.
	Session int64
	Created int  // the step that applied the create; 0 if unknown
	Lost    bool // the create's reply was lost: the client never saw it
	// End is how the creating client's program ended, at step Ended (0
	// if unknown).
	End   ClientEnd
	Ended int
	// SessionEnd is what became of Session, at step SessionAt (0 if
	// unknown).
	SessionEnd SessionEnd
	SessionAt  int
}

// ClientEnd is how a client's program ended.
type ClientEnd uint8

// Ends of a client's program.
const (
	// StillRunning: its program has not ended; it may yet remove the node.
	StillRunning ClientEnd = iota
	Finished               // its program returned
	Crashed                // it stopped for good, in the middle of its program
)

// SessionEnd is what became of the session a node was created on.
type SessionEnd uint8

// Ends of a session.
const (
	// Open: the session is open, as the client's current one.
	Open SessionEnd = iota
	// Abandoned: the client gave it up for a new session without telling
	// the server; it lives on until it expires.
	Abandoned
	// Expired: the server expired it (its ephemerals went with it).
	Expired
)

// Leftovers reports the orphans among the nodes a run left: nodes that
// nothing will ever remove. The caller passes the nodes the clients
// created (a create whose reply was lost, and each create of a multi,
// included) that the run's end finds still there, less those the recipe
// keeps on purpose (its directory, say) and those the server removes on
// its own (a TTL node, a container that has or had children). It is for
// a run in which every client's program has ended, returned or crashed
// (not one cut short by a deadlock or the step bound): while a client's
// program runs, it may remove any node by design, so none is an orphan
// (a node whose End is StillRunning never is). Then what could still
// remove a node is only, for an ephemeral one, its session's expiry. So
// a node is an orphan when:
//   - it is persistent (sequential or not, or a container that never had
//     a child, which the reaper keeps), and its client's program has
//     ended, whether it returned or crashed;
//   - it is ephemeral, and its client's program returned with the node's
//     session still its current, open one: that session lives as long as
//     the client's process, which will never remove the node. An
//     ephemeral of a client that crashed, or of a session its client
//     gave up (abandoned), is no orphan: the server removes it when that
//     session expires, which may be after the run ends.
//
// Each orphan is a Violation of its own, worded in one line from those
// facts, blaming the step that created the node and the step its client
// ended.
func Leftovers(nodes []Leftover) []check.Violation {
	ns := slices.Clone(nodes)
	slices.SortStableFunc(ns, func(a, b Leftover) int {
		return cmp.Or(cmp.Compare(a.Created, b.Created), strings.Compare(a.Path, b.Path))
	})
	var vs []check.Violation
	for _, n := range ns {
		if n.orphan() {
			vs = append(vs, check.Violation{Class: check.Orphan, Detail: n.cause(), Steps: Blame(n.Created, n.Ended)})
		}
	}
	return vs
}

// orphan says whether nobody will remove n (see Leftovers).
func (n Leftover) orphan() bool {
	switch {
	case n.End == StillRunning:
		return false
	case !n.Ephemeral:
		return true
	}
	return n.End == Finished && n.SessionEnd == Open
}

// cause words why n is an orphan, in one line: "c2 created persistent
// /s/l-0000000003 at step 31 on session 0x5 and crashed at step 40;
// nothing removed it".
func (n Leftover) cause() string {
	kind := "persistent"
	switch {
	case n.Ephemeral:
		kind = "ephemeral"
	case n.Container:
		kind = "container"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "c%d created %s %s%s", n.Client+1, kind, n.Path, at(n.Created))
	if n.Lost {
		b.WriteString(" (its reply lost)")
	}
	fmt.Fprintf(&b, " on session %#x", n.Session)
	end := "finished"
	if n.End == Crashed {
		end = "crashed"
	}
	fmt.Fprintf(&b, " and %s%s", end, at(n.Ended))
	switch n.SessionEnd {
	case Abandoned:
		fmt.Fprintf(&b, " (session abandoned%s)", at(n.SessionAt))
	case Expired:
		fmt.Fprintf(&b, " (session expired%s)", at(n.SessionAt))
	}
	switch {
	case n.Ephemeral:
		b.WriteString(" with that session open; nothing will remove it")
	case n.Container:
		b.WriteString("; nothing removed it, and the reaper keeps a container that never had a child")
	default:
		b.WriteString("; nothing removed it")
	}
	return b.String()
}

// at words a step, if known.
func at(step int) string {
	if step <= 0 {
		return ""
	}
	return fmt.Sprintf(" at step %d", step)
}
