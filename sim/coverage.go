package sim

import (
	"fmt"
	"strings"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/zkapi"
)

// Coverage counts what runs exercised, in ZooKeeper's terms: which fault
// landed on which kind of request (or wait) of the recipe's, which session
// states the clients went through, which watch events they were sent,
// the deadlines that fired and the containers reaped; and so, by its
// zeros (its "never" row), what no run met, as FoundationDB's code probes and P's
// scenario coverage show their users. A green run says only as much as
// what it exercised.
//
// It is a fixed-size value, recorded by a few array increments in the
// step that makes each thing happen (no map, no allocation: it runs on
// every step of every schedule), and the coverage of many runs is their
// sum (Add). Result.Coverage is one run's; Exploration.Exercised a
// systematic search's, over every run it made (cut runs' prefixes
// included).
type Coverage struct {
	runs, clientRuns int
	// did counts the requests sent (or lost on the way) by kind, and the
	// waits that ended by kind.
	did [numActivities]int
	// faults counts each fault kind by what its client was doing: the
	// request it had pending or in flight, or the wait it was in.
	faults    [numKinds - evLoseRequest][numActivities]int // by kind-evLoseRequest: see faultsOf
	deadlines [numActivities]int                           // virtual deadlines that fired on a live context
	sessions  [numSessionEvents]int
	clients   [numSessionEvents]int // client runs that went through each
	watches   [numWatchEvents]int   // notifications received, by type
	ended     int                   // watches ended by their session's end (NotWatching)
	rewatched int                   // reconnects that re-registered watches (SetWatches)
	lostNotes int                   // notifications lost with a dropped connection
	expired   int                   // sessions the server expired
	reaps     int                   // container reaper runs
	reaped    int                   // containers they deleted
}

// activity is what a client was doing when something happened to it: the
// kind of request it had pending or in flight, or the wait it was in.
type activity uint8

// Activities: ZooKeeper's request kinds, then the waits.
const (
	onCreate activity = iota
	onDelete
	onExists
	onGetData
	onSetData
	onGetChildren
	onMulti
	onSync
	onOtherRequest // ACLs, auth, persistent watches, ...
	inWatch        // a watch's Wait (one-shot or persistent)
	inSession      // WaitSession
	inSleep        // Client.Sleep
	idle           // between calls (not seen by the scheduler)
	numActivities
)

// firstWait is the first wait among the activities.
const firstWait = inWatch

var activityNames = [numActivities]string{"create", "delete", "exists", "getData", "setData", "getChildren",
	"multi", "sync", "other", "watch", "session", "sleep", "idle"}

func (a activity) String() string {
	if a < numActivities {
		return activityNames[a]
	}
	return fmt.Sprintf("activity(%d)", a)
}

// sessionEvent is a state a client's session went through.
type sessionEvent uint8

// Session events, as the client sees them.
const (
	sessionOpened       sessionEvent = iota // a session was established (the first, or after an expiry)
	sessionDisconnected                     // the connection dropped (a fault, a lost reply, a pause's end)
	sessionReconnected                      // the same session resumed on a new connection
	sessionExpired                          // the client learned its session had ended (or gave it up)
	sessionAbandoned                        // the client gave its session up for a new one
	sessionCrashed                          // the client stopped for good
	sessionPaused                           // the client stopped for longer than its session timeout
	numSessionEvents
)

var sessionNames = [numSessionEvents]string{"connected", "disconnected", "reconnected", "expired",
	"abandoned", "crashed", "paused"}

func (e sessionEvent) String() string {
	if e < numSessionEvents {
		return sessionNames[e]
	}
	return fmt.Sprintf("session(%d)", e)
}

// numWatchEvents: NodeCreated, NodeDeleted, NodeDataChanged,
// NodeChildrenChanged (zkapi.EventType 1 to 4), at index type-1.
const numWatchEvents = 4

// Add adds o's counts to c: the coverage of both sets of runs.
func (c *Coverage) Add(o *Coverage) {
	c.runs += o.runs
	c.clientRuns += o.clientRuns
	for k := range c.faults {
		addInts(c.faults[k][:], o.faults[k][:])
	}
	addInts(c.did[:], o.did[:])
	addInts(c.deadlines[:], o.deadlines[:])
	addInts(c.sessions[:], o.sessions[:])
	addInts(c.clients[:], o.clients[:])
	addInts(c.watches[:], o.watches[:])
	c.ended += o.ended
	c.rewatched += o.rewatched
	c.lostNotes += o.lostNotes
	c.expired += o.expired
	c.reaps += o.reaps
	c.reaped += o.reaped
}

func addInts(dst, src []int) {
	for i, n := range src {
		dst[i] += n
	}
}

// faultsOf is fault kind k's row of counts.
func (c *Coverage) faultsOf(k evKind) *[numActivities]int { return &c.faults[k-evLoseRequest] }

// What each step records: called by the scheduler where the thing happens.

// activityOf is what c, parked, is doing.
func activityOf(c *Client) activity {
	cl := c.call
	if cl == nil || c.state == stRunning {
		return idle
	}
	switch cl.kind {
	case callWatch, callPWatch, callAwait:
		return inWatch
	case callSession:
		return inSession
	case callSleep:
		return inSleep
	}
	return requestActivity(cl.req)
}

func requestActivity(r proto.Request) activity {
	switch r.(type) {
	case proto.Create:
		return onCreate
	case proto.Delete:
		return onDelete
	case proto.Exists:
		return onExists
	case proto.GetData:
		return onGetData
	case proto.SetData:
		return onSetData
	case proto.GetChildren:
		return onGetChildren
	case proto.Multi:
		return onMulti
	case proto.Sync:
		return onSync
	}
	return onOtherRequest
}

// covEvent records a rare event about to be applied (applyRare's); c is
// its client (nil for a catch-up, a reap). A send and a wake are
// recorded by covSend and covWake.
func (s *Sim) covEvent(ev Event, c *Client) {
	cov := &s.cov
	if c == nil {
		if ev.kind == evReap {
			cov.reaps++
		}
		return
	}
	a := activityOf(c)
	switch ev.kind {
	case evLoseRequest, evLoseReply:
		s.covSend(c)
		cov.faultsOf(ev.kind)[a]++
	case evDisconnect, evReorder:
		cov.faultsOf(ev.kind)[a]++
	case evCrash:
		cov.faultsOf(ev.kind)[a]++
		s.covSession(c, sessionCrashed)
	case evPause:
		cov.faultsOf(ev.kind)[a]++
		s.covSession(c, sessionPaused)
	case evAbandon:
		cov.faultsOf(ev.kind)[a]++
		s.covSession(c, sessionAbandoned)
	}
}

// covSend and covWake are covEvent for a send and a wake, the two of
// nearly every step, without its switch.
func (s *Sim) covSend(c *Client) { s.cov.did[activityOf(c)]++ }

func (s *Sim) covWake(c *Client) {
	if c.state == stWait {
		s.cov.did[activityOf(c)]++
	}
}

// covSession records that c went through e.
func (s *Sim) covSession(c *Client, e sessionEvent) {
	s.cov.sessions[e]++
	c.covSeen |= 1 << e
}

// covDrop records c's connection dropping: a disconnect if it was up, and
// the notifications lost with it.
func (s *Sim) covDrop(c *Client) {
	if c.connected {
		s.covSession(c, sessionDisconnected)
	}
	for _, m := range c.inbox {
		if !m.isReply {
			s.cov.lostNotes++
		}
	}
}

// covNotified records a notification a client received.
func (s *Sim) covNotified(t zkapi.EventType) {
	if t >= 1 && t <= numWatchEvents {
		s.cov.watches[t-1]++
	}
}

// covDeadline records a virtual deadline of client i firing.
func (s *Sim) covDeadline(i int) {
	if c := s.clients[i]; c.state != stDone && c.state != stCrashed {
		s.cov.deadlines[activityOf(c)]++
	}
}

// coverage is the run's coverage, once it has ended.
func (s *Sim) coverage() Coverage {
	cov := s.cov
	cov.runs, cov.clientRuns = 1, len(s.clients)
	for _, c := range s.clients {
		for e := range numSessionEvents {
			if c.covSeen&(1<<e) != 0 {
				cov.clients[e]++
			}
		}
	}
	return cov
}

// never lists what no run exercised, one item each, in a fixed order:
// each legal fault kind that never landed, or the recipe's request and
// wait kinds (those its runs made) it never landed on ("lose-reply on
// delete"); a container reaped; a deadline fired; the session states no
// client went through; the watch events no client received; watches
// re-registered on a reconnect.
func (c *Coverage) never() []string {
	never := []string{}
	for _, fk := range faultKinds {
		if fk.illegal || fk.kind == evReap {
			continue
		}
		never = append(never, c.neverOn(fk.kind)...)
	}
	switch {
	case c.reaps == 0:
		never = append(never, "reap")
	case c.reaped == 0:
		never = append(never, "reap deleting a container")
	}
	if sum(c.deadlines[:]) == 0 {
		never = append(never, "deadline")
	}
	for e := sessionDisconnected; e < numSessionEvents; e++ {
		if c.sessions[e] == 0 {
			never = append(never, e.String())
		}
	}
	if c.expired == 0 {
		never = append(never, "expired by the server")
	}
	for i, n := range c.watches {
		if n == 0 {
			never = append(never, zkapi.EventType(i+1).String())
		}
	}
	if c.rewatched == 0 {
		never = append(never, "watches re-registered")
	}
	return never
}

// neverOn lists the activities of the runs that fault kind k never landed
// on, or k alone if it never landed at all.
func (c *Coverage) neverOn(k evKind) []string {
	if sum(c.faultsOf(k)[:]) == 0 {
		return []string{k.String()}
	}
	var never []string
	for a := range idle {
		if c.did[a] == 0 || (a >= firstWait && (k == evLoseRequest || k == evLoseReply)) {
			continue // not the recipe's, or not where k can land
		}
		if c.faultsOf(k)[a] == 0 {
			never = append(never, k.String()+" on "+a.String())
		}
	}
	return never
}

func sum(ns []int) int {
	t := 0
	for _, n := range ns {
		t += n
	}
	return t
}

// table words the coverage as rows of a label and a line: the requests
// and waits made, each fault kind that landed (on what), deadlines,
// session states, watch events, and what never happened (never).
func (c *Coverage) table() [][2]string {
	rows := [][2]string{{"requests", c.counts(c.did[:firstWait], 0)}, {"waits", c.counts(c.did[firstWait:idle], firstWait)}}
	for _, fk := range faultKinds {
		switch {
		case fk.kind == evReap && c.reaps > 0:
			rows = append(rows, [2]string{"reap", fmt.Sprintf("%d runs, %d containers deleted", c.reaps, c.reaped)})
		case sum(c.faultsOf(fk.kind)[:]) > 0:
			rows = append(rows, [2]string{fk.kind.String(), "on " + c.counts(c.faultsOf(fk.kind)[:], 0)})
		}
	}
	if sum(c.deadlines[:]) > 0 {
		rows = append(rows, [2]string{"deadlines", "on " + c.counts(c.deadlines[:], 0)})
	}
	rows = append(rows, [2]string{"sessions", c.sessionLine()}, [2]string{"watches", c.watchLine()})
	return append(rows, [2]string{"never", strings.Join(c.never(), ", ")})
}

// counts words the nonzero counts of ns, activities from first: "create
// 3, delete 1", or "none".
func (c *Coverage) counts(ns []int, first activity) string {
	var parts []string
	for i, n := range ns {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", first+activity(i), n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func (c *Coverage) sessionLine() string {
	var parts []string
	for e := range numSessionEvents {
		if c.sessions[e] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d (%d of %d clients)", e, c.sessions[e], c.clients[e], c.clientRuns))
		}
	}
	return strings.Join(parts, ", ") + fmt.Sprintf("; %d expired by the server", c.expired)
}

func (c *Coverage) watchLine() string {
	var parts []string
	for i, n := range c.watches {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", zkapi.EventType(i+1), n))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "no notification")
	}
	return strings.Join(parts, ", ") + fmt.Sprintf("; %d re-registered on reconnects, %d ended by expiry, %d lost with a connection",
		c.rewatched, c.ended, c.lostNotes)
}

// String is the table, one row a line.
func (c *Coverage) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "exercised in %d runs:\n", c.runs)
	b.WriteString(c.rows("  ", 13, 80))
	return b.String()
}

// rows is the table as text: a line a row, each label after indent in
// a column labelWidth wide, and each row's items wrapped after the item
// that passes width, going on under the first.
func (c *Coverage) rows(indent string, labelWidth, width int) string {
	var b strings.Builder
	under := "\n" + strings.Repeat(" ", len(indent)+labelWidth+1)
	for _, r := range c.table() {
		var lines []string
		cur := ""
		for _, item := range strings.SplitAfter(r[1], ", ") {
			if cur != "" && len(cur)+len(item) > width {
				lines, cur = append(lines, strings.TrimRight(cur, " ")), ""
			}
			cur += item
		}
		fmt.Fprintf(&b, "%s%-*s %s\n", indent, labelWidth, r[0], strings.Join(append(lines, cur), under))
	}
	return b.String()
}
