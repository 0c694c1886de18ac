package history

import (
	"errors"
	"maps"
	pathpkg "path"
	"slices"
	"strconv"
	"strings"

	"github.com/zksim/zksim/linearize"
	"github.com/zksim/zksim/zkapi"
)

// errUnreturned is the outcome of a call that never returned.
var errUnreturned = errors.New("history: the call never returned")

// open is the Return of an operation that may take effect at any time
// after its call: its reply was lost, or its session's end was never
// seen.
const open = 1 << 62

// Queue returns the operations on the lock queues at dirs that the
// history shows (see linearize.QueueOp): the creates and deletes of
// their children, the ends of the sessions that owned ephemeral ones,
// and the wake-ups by events about them.
func Queue(entries []Entry, dirs []string) []linearize.QueueOp {
	b := &builder{dirs: dirs, clients: map[int]*clientState{}, calls: map[int]Entry{}, watches: map[int]Entry{}}
	for _, e := range entries {
		b.entry(e)
	}
	b.finish()
	return b.ops
}

// builder turns entries into queue operations, in one pass.
type builder struct {
	dirs    []string
	clients map[int]*clientState
	calls   map[int]Entry // calls not yet returned, by ID
	watches map[int]Entry // the Return that set each watch, by its number
	ops     []linearize.QueueOp
	lost    []lostCreate
	lists   []listing
}

// lostCreate is a create on a queue whose reply was lost: it may have
// made a node whose name the client never learned.
type lostCreate struct {
	client    int
	path      string // as asked: a sequential node's name begins with it
	mode      zkapi.CreateMode
	call, ret int64
	session   int64
}

// listing is a successful children listing of a queue directory: each
// node in it existed, and each node queued before its call and absent
// from it was gone, at the moment the server served it.
type listing struct {
	client    int
	dir       string
	call, ret int64
	names     map[string]bool // full paths
}

// clientState is what the builder knows of one client.
type clientState struct {
	acquiring, holding, read bool
	session                  int64       // at the Acquire mark
	nodes                    []ephemeral // its ephemeral queue nodes believed to exist
	pending                  int         // the op index of its last reader wake-up not yet known to proceed; -1: none
	woken                    map[int]bool
	lastWrite                int64 // the call of its latest write that succeeded
	// alive is, per session, the call of its latest request that
	// succeeded: the server served it, so the session, and its
	// ephemeral nodes, lived until at least then.
	alive map[int64]int64
}

// ephemeral is a queue node that goes with its session.
type ephemeral struct {
	path    string
	session int64
	since   int64 // its create's return
}

func (b *builder) client(i int) *clientState {
	if c, ok := b.clients[i]; ok {
		return c
	}
	c := &clientState{pending: -1, woken: map[int]bool{}, alive: map[int64]int64{}}
	b.clients[i] = c
	return c
}

func (b *builder) entry(e Entry) {
	c := b.client(e.Client)
	b.sessionEnds(e, c)
	switch e.Kind {
	case Call:
		b.calls[e.ID] = e
	case Return:
		call := b.calls[e.ID]
		delete(b.calls, e.ID)
		if e.Err == nil && call.Session.ID == e.Session.ID {
			c.alive[e.Session.ID] = max(c.alive[e.Session.ID], call.At)
		}
		if e.Watch > 0 {
			b.watches[e.Watch] = Entry{At: c.lastWrite, ID: int(e.At), Session: e.Session, Op: call.Op, Path: call.Path,
				Names: e.Names, Result: e.Result}
		}
		if e.Err == nil && slices.Contains([]string{"create", "delete", "set", "multi"}, call.Op) {
			c.lastWrite = call.At
		}
		b.returned(call, e, c)
	case Wait:
		if !c.woken[e.Watch] {
			c.pending = -1 // it waits again: a wake-up before did not let it proceed
		}
	case Woken:
		b.woken(e, c)
	default:
		b.mark(e, c)
	}
}

// mark follows the workload's marks.
func (b *builder) mark(e Entry, c *clientState) {
	switch e.Kind {
	case Acquire:
		c.acquiring, c.read, c.session = true, e.Read, e.Session.ID
	case Held, GaveUp:
		c.acquiring, c.holding = false, e.Kind == Held
		b.proceeded(c)
	case Release:
		c.holding = true
	case Released:
		c.holding = false
	}
}

func (b *builder) proceeded(c *clientState) {
	if c.pending >= 0 {
		b.ops[c.pending].Proceeded = true
		c.pending = -1
	}
}

// sessionEnds ends the client's ephemeral nodes of a session e shows
// gone: replaced, expired or closed.
func (b *builder) sessionEnds(e Entry, c *clientState) {
	s := e.Session
	c.nodes = slices.DeleteFunc(c.nodes, func(n ephemeral) bool {
		if !s.Lost(n.session) || (s.ID == 0 && s.State == zkapi.StateConnecting) {
			return false
		}
		b.ops = append(b.ops, linearize.QueueOp{Kind: linearize.Dequeue, Client: e.Client, Node: n.path,
			GiveUp: !c.holding, Maybe: true, Call: c.lived(n), Return: e.At})
		return true
	})
}

// lived is the earliest a node's session can have ended.
func (c *clientState) lived(n ephemeral) int64 { return max(n.since, c.alive[n.session]) }

// returned turns a create, delete or multi on a queue into its changes.
func (b *builder) returned(call, e Entry, c *clientState) {
	switch call.Op {
	case "children", "childrenw":
		if e.Err == nil && slices.Contains(b.dirs, call.Path) {
			l := listing{client: e.Client, dir: call.Path, call: call.At, ret: e.At, names: map[string]bool{}}
			for _, n := range e.Names {
				l.names[pathpkg.Join(call.Path, n)] = true
			}
			b.lists = append(b.lists, l)
		}
	case "create":
		b.create(call, e, c, call.Path, call.Mode, e.Result, e.Err)
	case "delete":
		b.remove(call, e, c, call.Path, e.Err)
	case "multi":
		created := strings.Fields(e.Result)
		for _, op := range call.Ops {
			switch op := op.(type) {
			case zkapi.CreateOp:
				name := ""
				if e.Err == nil && len(created) > 0 {
					name, created = created[0], created[1:]
				}
				b.create(call, e, c, op.Path, op.Mode, name, e.Err)
			case zkapi.DeleteOp:
				b.remove(call, e, c, op.Path, e.Err)
			}
		}
	}
}

func (b *builder) create(call, e Entry, c *clientState, path string, mode zkapi.CreateMode, name string, err error) {
	if !b.queued(path) {
		return
	}
	switch {
	case err == nil:
		b.ops = append(b.ops, linearize.QueueOp{Kind: linearize.Enqueue, Client: e.Client, Node: name, Call: call.At, Return: e.At})
		if mode == zkapi.Ephemeral || mode == zkapi.EphemeralSequential {
			c.nodes = append(c.nodes, ephemeral{path: name, session: e.Session.ID, since: e.At})
		}
	case !definite(err):
		b.lost = append(b.lost, lostCreate{client: e.Client, path: path, mode: mode, call: call.At, ret: e.At, session: call.Session.ID})
	}
}

func (b *builder) remove(call, e Entry, c *clientState, path string, err error) {
	if !b.queued(path) || (err != nil && definite(err)) {
		return
	}
	ret := e.At
	if err != nil {
		ret = open
	}
	b.ops = append(b.ops, linearize.QueueOp{Kind: linearize.Dequeue, Client: e.Client, Node: path,
		GiveUp: !c.holding, Maybe: err != nil, Call: call.At, Return: ret})
	if err == nil {
		for _, other := range b.clients {
			other.nodes = slices.DeleteFunc(other.nodes, func(n ephemeral) bool { return n.path == path })
		}
	}
}

// woken turns a Wait's first return of a watch's event about a queue
// into a wake-up, as the simulator counts them: not an event saying the
// watch ended, nor a data change, nor one of a watch set on a session
// since replaced.
func (b *builder) woken(e Entry, c *clientState) {
	set, ok := b.watches[e.Watch]
	if !ok || c.woken[e.Watch] {
		return
	}
	c.woken[e.Watch] = true
	ev := e.Event
	child := ev.Type == zkapi.EventNodeChildrenChanged
	relevant := (child && slices.Contains(b.dirs, ev.Path)) ||
		((ev.Type == zkapi.EventNodeDeleted || ev.Type == zkapi.EventNodeCreated) && b.queued(ev.Path))
	if !relevant || set.Session.ID != e.Session.ID {
		return
	}
	op := linearize.QueueOp{Kind: linearize.Wake, Client: e.Client, Node: ev.Path, Child: child,
		Reader: c.acquiring && c.read, Replaced: c.acquiring && c.session != e.Session.ID, Reconnected: set.Session.Seq != e.Session.Seq,
		Call: set.At, Set: int64(set.ID), Return: e.At}
	op.Looked, op.Saw = saw(set, ev)
	b.ops = append(b.ops, op)
	switch {
	case op.Reader:
		c.pending = len(b.ops) - 1
	default:
		c.pending = -1
	}
}

// saw is what the watch-setting call set saw of the queue the event is
// about: for a child watch the directory's children, for a node watch
// the node if it existed. A watch set by another call than the event
// says (a child event of a node watch) saw nothing known.
func saw(set Entry, ev zkapi.Event) (bool, []string) {
	switch {
	case ev.Type == zkapi.EventNodeChildrenChanged && set.Op == "childrenw" && set.Path == ev.Path:
		names := make([]string, len(set.Names))
		for i, n := range set.Names {
			names[i] = pathpkg.Join(set.Path, n)
		}
		return true, names
	case ev.Type != zkapi.EventNodeChildrenChanged && set.Op != "childrenw" && set.Path == ev.Path:
		if set.Result == "exists" {
			return true, []string{set.Path}
		}
		return true, nil
	}
	return false, nil
}

// finish leaves open the end of every ephemeral node whose session's end
// no client saw, and counts a reader's last wake-up, with nothing after
// it, as one that proceeded (its client stopped).
func (b *builder) finish() {
	for _, i := range slices.Sorted(maps.Keys(b.clients)) {
		c := b.clients[i]
		for _, n := range c.nodes {
			b.ops = append(b.ops, linearize.QueueOp{Kind: linearize.Dequeue, Client: i, Node: n.path,
				GiveUp: !c.holding, Maybe: true, Call: c.lived(n), Return: open})
		}
		b.proceeded(c)
	}
	b.unreturned()
	b.resolveLost()
	b.tighten()
	b.knownOnly()
	b.ops = slices.DeleteFunc(b.ops, b.uncaused)
}

// unreturned takes the calls that never returned (their client stopped)
// as calls whose reply was lost.
func (b *builder) unreturned() {
	for _, id := range slices.Sorted(maps.Keys(b.calls)) {
		call := b.calls[id]
		e := Entry{At: open, Client: call.Client, Err: errUnreturned, Session: call.Session}
		b.returned(call, e, b.client(call.Client))
	}
}

// uncaused says whether op is a wake-up about a node no change of the
// history touches: made and removed outside it, it cannot be judged.
func (b *builder) uncaused(op linearize.QueueOp) bool {
	return op.Kind == linearize.Wake && !op.Child && !slices.ContainsFunc(b.ops, func(o linearize.QueueOp) bool {
		return o.Kind != linearize.Wake && o.Node == op.Node
	})
}

// knownOnly leaves out of what each wake-up's watch-setting call saw the
// nodes no Enqueue names (made outside the history), and sorts it.
func (b *builder) knownOnly() {
	known := map[string]bool{}
	for _, op := range b.ops {
		if op.Kind == linearize.Enqueue {
			known[op.Node] = true
		}
	}
	for i, op := range b.ops {
		if op.Kind == linearize.Wake && op.Looked {
			saw := slices.DeleteFunc(slices.Clone(op.Saw), func(n string) bool { return !known[n] })
			slices.Sort(saw)
			b.ops[i].Saw = slices.Compact(saw)
		}
	}
}

// queued says whether path is a child of one of the queue directories.
func (b *builder) queued(path string) bool {
	return slices.Contains(b.dirs, pathpkg.Dir(path))
}

// definite says whether an error means the request did not take effect:
// the server refused it, or it was never sent.
func definite(err error) bool {
	for _, d := range []error{zkapi.ErrNoNode, zkapi.ErrNodeExists, zkapi.ErrBadVersion, zkapi.ErrNotEmpty,
		zkapi.ErrNoChildrenForEphemerals, zkapi.ErrBadArguments, zkapi.ErrNoAuth, zkapi.ErrInvalidACL, zkapi.ErrClosed} {
		if errors.Is(err, d) {
			return true
		}
	}
	return false
}

// resolveLost gives each lost create its changes. A node of the name it
// asked for, in a listing served after its call and made by no create
// that returned, is its node: created before that listing returned (a
// lagging member shows an older state, never a newer one), and gone
// when a delete or its session's end says (or, failing those, when
// listings stop showing it). Seen in no listing, it may have made a node
// that went before the client's next listing after its return: both
// changes stay open until that listing's return, or for good without
// one.
func (b *builder) resolveLost() {
	known := map[string]bool{}
	for _, op := range b.ops {
		if op.Kind == linearize.Enqueue {
			known[op.Node] = true
		}
	}
	for i, lc := range b.lost {
		if node, at, ok := b.findLost(lc, known); ok {
			known[node] = true
			b.ops = append(b.ops, linearize.QueueOp{Kind: linearize.Enqueue, Client: lc.client, Node: node, Call: lc.call, Return: at})
			if (lc.mode == zkapi.Ephemeral || lc.mode == zkapi.EphemeralSequential) && !b.dequeued(node) {
				b.ops = append(b.ops, linearize.QueueOp{Kind: linearize.Dequeue, Client: lc.client, Node: node, GiveUp: true, Maybe: true, Call: lc.call, Return: open})
			}
			continue
		}
		end := int64(open)
		for _, l := range b.lists {
			if l.client == lc.client && l.dir == pathpkg.Dir(lc.path) && l.call >= lc.ret {
				end = l.ret
				break
			}
		}
		node := pathpkg.Dir(lc.path) + "/?lost-" + strconv.Itoa(i+1)
		if !sequential(lc.mode) {
			node = lc.path // a name made many times: this one may be it
		}
		b.ops = append(b.ops,
			linearize.QueueOp{Kind: linearize.Enqueue, Client: lc.client, Node: node, Maybe: true, Call: lc.call, Return: end},
			linearize.QueueOp{Kind: linearize.Dequeue, Client: lc.client, Node: node, GiveUp: true, Maybe: true, Call: lc.call, Return: end})
	}
}

// findLost finds a lost create's node in the listings: its name, and
// the return of the first listing that shows it.
func (b *builder) findLost(lc lostCreate, known map[string]bool) (string, int64, bool) {
	for _, l := range b.lists {
		if l.ret < lc.call || l.dir != pathpkg.Dir(lc.path) {
			continue
		}
		names := make([]string, 0, len(l.names))
		for n := range l.names {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			if !known[n] && (n == lc.path || (sequential(lc.mode) && strings.HasPrefix(n, lc.path) && len(n) == len(lc.path)+10)) {
				return n, l.ret, true
			}
		}
	}
	return "", 0, false
}

// dequeued says whether some change removes node.
func (b *builder) dequeued(node string) bool {
	return slices.ContainsFunc(b.ops, func(op linearize.QueueOp) bool { return op.Kind == linearize.Dequeue && op.Node == node })
}

// tighten narrows each dequeue by the listings of the clients that
// have seen its node: one that created it, or listed it. A member may
// serve a read from a state older than the call (a lagging follower),
// but a client's view never goes back: once it has seen a node, a
// listing of its without the node shows the node had gone by that
// listing's return.
func (b *builder) tighten() {
	made, times := map[string]linearize.QueueOp{}, map[string]int{}
	for _, op := range b.ops {
		if op.Kind == linearize.Enqueue {
			made[op.Node] = op
			times[op.Node]++
		}
	}
	var gone []int
	for i, op := range b.ops {
		enq, ok := made[op.Node]
		if op.Kind != linearize.Dequeue || !ok || times[op.Node] > 1 {
			continue // a name made twice (a lock of one node) is two nodes: no telling which a listing shows
		}
		seen := map[int]int64{enq.Client: enq.Return} // client -> since when it knows the node
		for _, l := range b.lists {
			if l.dir != pathpkg.Dir(op.Node) {
				continue
			}
			if since, ok := seen[l.client]; ok && l.call >= since && !l.names[op.Node] {
				b.ops[i].Return = min(b.ops[i].Return, l.ret)
				break
			}
			if _, ok := seen[l.client]; !ok && l.names[op.Node] {
				seen[l.client] = l.ret
			}
		}
		if b.ops[i].Return < op.Call {
			gone = append(gone, i) // the node had gone before: this removed nothing
		}
	}
	for k, i := range gone {
		b.ops = slices.Delete(b.ops, i-k, i-k+1)
	}
}

func sequential(m zkapi.CreateMode) bool {
	return m == zkapi.PersistentSequential || m == zkapi.EphemeralSequential || m == zkapi.PersistentSequentialWithTTL
}
