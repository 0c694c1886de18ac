package sim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/checkers"
)

// Wait is what an unfinished client waited on when a run ended: words
// for a deadlock verdict, and the steps to blame for it.
type Wait struct {
	Client string
	On     string // "the watch on /locks/l/x (c1's node, session 0x..., created at step 7)"
	Steps  []int  // the node's creation and the step the client began to wait
}

// deadlock is the verdict of a deadlocked run: who waited, on what.
func (res *Result) deadlock() check.Violation {
	who := strings.Join(res.Waiting, ", ") + " waited"
	var steps []int
	if len(res.Waits) > 0 {
		var on []string
		for _, w := range res.Waits {
			on = append(on, w.Client+" waited for "+w.On)
			steps = append(steps, w.Steps...)
		}
		who = strings.Join(on, "; ")
	}
	return check.Violation{Class: check.Deadlock, Steps: checkers.Blame(steps...),
		Detail: fmt.Sprintf("only time could advance at step %d while %s", res.Steps, who)}
}

// waitOf says what a parked client waits on: a watch on a node (named
// with its owner, see nodeOwner), a sleep, its session, or a reply.
func (s *Sim) waitOf(c *Client) Wait {
	w := Wait{Client: c.name, On: "a reply"}
	cl := c.call
	if cl == nil {
		return w
	}
	switch cl.kind {
	case callWatch:
		var created int
		w.On, created = s.nodeOwner(cl.w.path)
		w.On = "the watch on " + w.On
		w.Steps = append(w.Steps, created)
	case callSleep:
		w.On = fmt.Sprintf("a sleep until t%d", cl.until)
	case callSession:
		w.On = "its session"
	case callPWatch:
		w.On = "a persistent watch on " + cl.pw.path
	case callAwait:
		w.On = "its program"
		if cl.w != nil {
			var created int
			w.On, created = s.nodeOwner(cl.w.path)
			w.On = "its program, on the watch on " + w.On
			w.Steps = append(w.Steps, created)
		}
	}
	w.Steps = append(w.Steps, cl.step)
	return w
}

// nodeOwner words a node with who owns it: "/l/x (c1's node, session
// 0x100000000000001, created at step 7)", or "/l/x (gone)", and returns
// the step that created it (0 if unknown: the run was not traced, or the
// node is gone or was made before the run).
func (s *Sim) nodeOwner(path string) (string, int) {
	_, st, ok := s.m.Node(path)
	if !ok {
		return path + " (gone)", 0
	}
	created := stepOfZxid(s.trace, st.Czxid)
	at := ""
	if created > 0 {
		at = fmt.Sprintf(", created at step %d", created)
	}
	if st.EphemeralOwner == 0 {
		return fmt.Sprintf("%s (persistent%s)", path, at), created
	}
	owner := "no client's session"
	for _, c := range s.clients {
		switch {
		case c.model.ID == st.EphemeralOwner:
			owner = c.name + "'s node, its session"
		case containsSession(c.old, st.EphemeralOwner):
			owner = c.name + "'s node, its earlier session"
		}
	}
	return fmt.Sprintf("%s (%s %#x%s)", path, owner, st.EphemeralOwner, at), created
}

func containsSession(ids []int64, id int64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// stepOfZxid is the step of the first trace line whose reply carries
// zxid: the write that made it (a read after it shows the same zxid, never
// one before it); 0 if none.
func stepOfZxid(trace []string, zxid int64) int {
	if zxid <= 0 {
		return 0
	}
	want := "-> z=" + strconv.FormatInt(zxid, 10) + " "
	for _, l := range trace {
		if strings.Contains(l, want) {
			step, _ := strconv.Atoi(strings.Fields(l)[0])
			return step
		}
	}
	return 0
}
