package linearize

import (
	"cmp"
	"fmt"
	pathpkg "path"
	"slices"
	"strconv"
	"strings"

	"github.com/anishathalye/porcupine"
)

// QueueKind is what a QueueOp did to a lock queue.
type QueueKind uint8

// Kinds of QueueOp.
const (
	// Enqueue: a node joined a lock directory (its create).
	Enqueue QueueKind = iota
	// Dequeue: a node left it (its delete, or its session's end).
	Dequeue
	// Wake: a watch on the queue fired and a waiting client's Watch.Wait
	// returned its event.
	Wake
)

func kindName(k QueueKind) string {
	switch k {
	case Enqueue:
		return "enqueue"
	case Dequeue:
		return "dequeue"
	}
	return "wake"
}

// QueueOp is one operation of a lock queue's history, for Herd: a change
// to the queue (Enqueue, Dequeue), taking effect between its Call and its
// Return, or a wake-up (Wake), whose Call is when the client set the
// watch and whose Return is when its Wait returned: the change that fired
// the watch came in between.
type QueueOp struct {
	Kind   QueueKind
	Client int
	// Node is the node's path (Enqueue, Dequeue), or the event's path
	// (Wake): the node whose deletion or creation fired the watch, or,
	// if Child, the directory whose children changed. A queue is the
	// nodes of one directory.
	Node  string
	Child bool
	// GiveUp (Dequeue): the node's owner did not hold the lock when it
	// went: it gave up waiting, or its session ended while it waited.
	GiveUp bool
	// Maybe: the change may not have happened: a create or delete whose
	// reply was lost, or the end of a session that may have found the
	// node gone already. A maybe dequeue removes, and fires, only a node
	// queued, a maybe enqueue only one not queued; a sure one needs it so.
	Maybe bool
	// Reader (Wake): the woken client was acquiring for reading;
	// Proceeded: it then held, gave up or stopped without waiting again.
	// A change may wake such readers beside the one client that could
	// proceed, and, when it was a give-up, every reader.
	Reader, Proceeded bool
	// Replaced (Wake): the client's session was replaced since it began
	// to acquire. Woken by the deletion of the node it watched while it
	// has no node queued, it waited for a place it no longer has: a
	// stale wake-up, not a herd (check.StaleWakeup).
	Replaced bool
	// Reconnected (Wake): the client's connection changed between the
	// watch's setting and the wake-up, so the server may have fired it as
	// the session caught up (setWatches) rather than at the change: not
	// counted, as the simulator does not count such wake-ups.
	Reconnected bool
	// Looked (Wake): what the watch-setting call saw of the queue is
	// known: Saw, as full paths, the directory's children for a child
	// watch, the node if it existed for a node watch. The watch was set
	// at a moment the queue looked so, which places it among the
	// changes. Nodes no Enqueue of the history names are left out.
	Looked bool
	Saw    []string
	// Call is when the call began (for a wake-up, the call that set the
	// watch), Return when it returned (the Wait's return). Set is when
	// a wake-up's watch-setting call returned: its watch was set by then.
	Call, Return, Set int64

	_ struct{}
}

// herdSteps bounds each of Herd's searches, in porcupine model steps.
// The lock workloads' histories (tens of changes and wake-ups per
// directory, few open at once) take thousands.
const herdSteps = 1 << 18

// Herd decides whether the wake-ups of a lock queue's history were free
// of herds: one change (a node's creation or deletion) woke at most one
// client, the one that could proceed, beside readers that went on to
// hold (or, after a give-up, any reader) and stale wake-ups. Which change
// fired which watch the history does not say (a real server's
// notification carries no zxid), so a wake-up may be owed to any change
// between its watch and its return that could fire it: the deletion or
// creation of its node, or, for a child event, any change in the
// directory. Herd looks for such an assignment in which no change wakes
// two clients that count, which is a linearization of the history
// against a model of the queue: porcupine's search.
//
// It returns nil, true if there is one; otherwise the wake-ups, of one
// directory and by Return, that show there is none: the first one no
// assignment can fit, and the earlier ones it competes with. Directories
// are judged in path order, and the first with a herd is reported.
// decided is false if a search met its bound (2^20 steps) first: then nothing was
// ruled out. The bound is a step count, never wall-clock time, so the
// verdict is the same on every machine.
func Herd(ops []QueueOp) (herd []QueueOp, decided bool) {
	return herdSearch(ops, herdSteps)
}

func herdSearch(ops []QueueOp, steps int64) ([]QueueOp, bool) {
	for _, dir := range queueDirs(ops) {
		one := slices.DeleteFunc(slices.Clone(ops), func(op QueueOp) bool { return op.dir() != dir })
		herd, decided := herdIn(one, steps)
		if !decided || herd != nil {
			return herd, decided
		}
	}
	return nil, true
}

// dir is the queue an operation belongs to.
func (op QueueOp) dir() string {
	if op.Kind == Wake && op.Child {
		return op.Node
	}
	return pathpkg.Dir(op.Node)
}

// queueDirs lists the directories of ops, sorted.
func queueDirs(ops []QueueOp) []string {
	var dirs []string
	for _, op := range ops {
		dirs = append(dirs, op.dir())
	}
	slices.Sort(dirs)
	return slices.Compact(dirs)
}

// herdIn judges one directory. It is linearizable with no wake-up, as
// changes always are; so if it is not with all of them, the wake-ups
// added by Return meet a first that no linearization fits, found by
// bisection (adding wake-ups only adds constraints). Its competitors
// are the earlier wake-ups without which it would fit.
func herdIn(ops []QueueOp, steps int64) ([]QueueOp, bool) {
	changes, wakes := splitWakes(ops)
	ok, decided := queueLinearizable(append(slices.Clone(changes), wakes...), steps)
	if ok || !decided {
		return nil, decided
	}
	if len(wakes) == 0 {
		return nil, false // the changes alone do not fit the model: the history misses some
	}
	lo, hi := 0, len(wakes) // wakes[:lo] fit, wakes[:hi] do not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		ok, decided := queueLinearizable(append(slices.Clone(changes), wakes[:mid]...), steps)
		if !decided {
			return nil, false
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return competitors(changes, wakes[:hi], steps)
}

// splitWakes separates the changes from the wake-ups, these by Return.
func splitWakes(ops []QueueOp) (changes, wakes []QueueOp) {
	for _, op := range ops {
		if op.Kind == Wake {
			wakes = append(wakes, op)
		} else {
			changes = append(changes, op)
		}
	}
	slices.SortStableFunc(wakes, func(a, b QueueOp) int { return cmp.Compare(a.Return, b.Return) })
	return changes, wakes
}

// competitors returns the last of wakes, which no linearization of
// changes and wakes fits, with the earlier wake-ups whose removal would
// let it fit, by Return.
func competitors(changes, wakes []QueueOp, steps int64) ([]QueueOp, bool) {
	last := wakes[len(wakes)-1]
	var out []QueueOp
	for i, w := range wakes[:len(wakes)-1] {
		if w.Return < last.Call || w.Client == last.Client {
			continue
		}
		without := append(slices.Clone(changes), wakes[:i]...)
		ok, decided := queueLinearizable(append(without, wakes[i+1:]...), steps)
		if !decided {
			return nil, false
		}
		if ok {
			out = append(out, w)
		}
	}
	return append(out, last), true
}

// queueLinearizable runs porcupine's search over one directory's ops,
// bounded by steps model steps. A wake-up is two operations: its
// watch's setting, from the call that set it to that call's return, and
// its wake, from that call to the Wait's return.
func queueLinearizable(ops []QueueOp, steps int64) (ok, decided bool) {
	var history []porcupine.Operation
	for i, op := range ops {
		in := queueInput{QueueOp: op, id: i}
		if op.Kind == Wake {
			history = append(history, porcupine.Operation{ClientId: op.Client, Input: queueInput{QueueOp: op, id: i, arm: true},
				Call: op.Call, Return: max(op.Call, op.Set)})
		}
		history = append(history, porcupine.Operation{ClientId: op.Client, Input: in, Call: op.Call, Return: max(op.Call, op.Return)})
	}
	m, b := bounded(queueModel, steps)
	res := porcupine.CheckOperationsTimeout(m, history, 0)
	if b.reached() {
		return false, false
	}
	return res == porcupine.Ok, true
}

// queueInput is a QueueOp as the model takes it: id names its watch,
// and arm is a wake-up's watch being set.
type queueInput struct {
	QueueOp
	id  int
	arm bool
}

// queueState is the queue after some prefix of a linearization. Each
// line of its fields is one entry; the fields are sorted.
type queueState struct {
	nodes string // "client node": the nodes queued
	armed string // "id node" or "id node/": the watches set that have not fired; "/": a child watch
	fired string // "id cause": the watches fired, not yet returned, and the change that fired them
	woken string // "cause client": the client a change woke that counts, while it may wake more
}

// queueModel is a lock queue whose changes are always legal. A change
// fires the watches set on its node, and the child watches of its
// directory; a wake-up is legal once its watch fired, unless the change
// that fired it already woke another client that counts.
var queueModel = porcupine.Model{
	Init:  func() interface{} { return queueState{} },
	Step:  stepQueue,
	Equal: func(a, b interface{}) bool { return a.(queueState) == b.(queueState) },
	DescribeOperation: func(input, _ interface{}) string {
		in := input.(queueInput)
		if in.arm {
			return fmt.Sprintf("c%d watches %s", in.Client+1, in.Node)
		}
		return fmt.Sprintf("c%d %s %s", in.Client+1, kindName(in.Kind), in.Node)
	},
}

func stepQueue(state, input, _ interface{}) (bool, interface{}) {
	s, in := state.(queueState), input.(queueInput)
	switch {
	case in.arm:
		if in.Looked && !looksSo(s, in.QueueOp) {
			return false, s
		}
		watched := in.Node
		if in.Child {
			watched += "/"
		}
		s.armed = addLine(s.armed, strconv.Itoa(in.id)+" "+watched)
		return true, s
	case in.Kind == Enqueue:
		if slices.ContainsFunc(lines(s.nodes), func(l string) bool { return strings.HasSuffix(l, " "+in.Node) }) {
			return in.Maybe, s // a path exists once: its create comes after the delete of the last
		}
		s.nodes = addLine(s.nodes, strconv.Itoa(in.Client)+" "+in.Node)
		return true, fire(s, in, "+")
	case in.Kind == Dequeue:
		before := s.nodes
		s.nodes = dropLines(s.nodes, func(l string) bool { return strings.HasSuffix(l, " "+in.Node) })
		if s.nodes == before {
			return in.Maybe, s // nothing to remove: a sure dequeue cannot be here
		}
		mark := "-"
		if in.GiveUp {
			mark = "!"
		}
		return true, fire(s, in, mark)
	}
	return wake(s, in)
}

// looksSo says whether the queue in s is what a watch-setting call saw.
// Nodes of lost creates never seen ("?lost-") are not compared.
func looksSo(s queueState, op QueueOp) bool {
	var view []string
	for _, l := range lines(s.nodes) {
		_, node, _ := strings.Cut(l, " ")
		if !strings.Contains(node, "/?lost-") && (op.Child || node == op.Node) {
			view = append(view, node)
		}
	}
	slices.Sort(view)
	view = slices.Compact(view)
	if op.Child {
		return slices.Equal(view, op.Saw)
	}
	return (len(view) > 0) == (len(op.Saw) > 0)
}

// fire moves the armed watches a change fires to fired, the change named
// by its mark ("+": created, "-": deleted, "!": deleted by a give-up)
// and its operation (a node's name may be made twice).
func fire(s queueState, change queueInput, mark string) queueState {
	cause := mark + strconv.Itoa(change.id)
	dir := pathpkg.Dir(change.Node) + "/"
	for _, l := range lines(s.armed) {
		id, watched, _ := strings.Cut(l, " ")
		if watched == change.Node || watched == dir {
			s.armed = dropLines(s.armed, func(x string) bool { return x == l })
			s.fired = addLine(s.fired, id+" "+cause)
		}
	}
	return s
}

// wake takes a wake-up: its watch must have fired, and the change that
// fired it must have woken no other client that counts.
func wake(s queueState, in queueInput) (bool, interface{}) {
	prefix := strconv.Itoa(in.id) + " "
	i := slices.IndexFunc(lines(s.fired), func(l string) bool { return strings.HasPrefix(l, prefix) })
	if i < 0 {
		return false, s // no change fired its watch yet
	}
	line := lines(s.fired)[i]
	cause := strings.TrimPrefix(line, prefix)
	s.fired = dropLines(s.fired, func(l string) bool { return l == line })
	if !free(s, in.QueueOp, cause) {
		var other bool
		for _, l := range lines(s.woken) {
			c, who, _ := strings.Cut(l, " ")
			other = other || (c == cause && who != strconv.Itoa(in.Client))
		}
		if other {
			return false, s
		}
		s.woken = addLine(s.woken, cause+" "+strconv.Itoa(in.Client))
	}
	// A change whose watches have all returned wakes no more: forget it.
	for _, c := range lines(s.woken) {
		cs, _, _ := strings.Cut(c, " ")
		if !slices.ContainsFunc(lines(s.fired), func(l string) bool { return strings.HasSuffix(l, " "+cs) }) {
			s.woken = dropLines(s.woken, func(l string) bool { return l == c })
		}
	}
	return true, s
}

// free says whether a wake-up does not count against the change that
// fired it: a reader's that proceeded, or that a give-up woke; or a
// stale one.
func free(s queueState, op QueueOp, cause string) bool {
	if op.Reconnected || (op.Reader && (op.Proceeded || strings.HasPrefix(cause, "!"))) {
		return true
	}
	mine := strconv.Itoa(op.Client) + " "
	return op.Replaced && !op.Child && !slices.ContainsFunc(lines(s.nodes), func(l string) bool { return strings.HasPrefix(l, mine) })
}

// lines splits a state field into its entries.
func lines(field string) []string {
	if field == "" {
		return nil
	}
	return strings.Split(field, "\n")
}

func addLine(field, line string) string {
	ls := append(lines(field), line)
	slices.Sort(ls)
	return strings.Join(ls, "\n")
}

func dropLines(field string, drop func(string) bool) string {
	return strings.Join(slices.DeleteFunc(lines(field), drop), "\n")
}
