package linearize

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/anishathalye/porcupine"
)

// Mode is how a lock was held.
type Mode uint8

// Lock modes.
const (
	Exclusive Mode = iota
	Read
	Write
)

func (m Mode) String() string {
	switch m {
	case Read:
		return "read"
	case Write:
		return "write"
	}
	return "exclusive"
}

// Hold is one critical section. Times are logical (simulator steps, or
// any monotonic clock); End < 0 means still held when the history ended.
type Hold struct {
	Client int
	Lock   string
	Mode   Mode
	Call   int64 // acquire called
	Start  int64 // acquire returned: held from here
	End    int64 // release called, or the session lost the lock
	// Token is the fencing token (an election's term) the holder took at
	// acquisition, if HasToken: the term checks read it, the linearizability
	// checks do not.
	Token    int64
	HasToken bool
}

// Locks checks a history of holds on locks of n leases each: for n <= 1
// mutual and reader/writer exclusion (a mutex or a read/write lock), for
// n > 1 a counting semaphore. It returns nil if the history is
// linearizable, and otherwise the holds, on one lock and by Start, that
// show it is not: for n <= 1 two that overlap and are not both reads, for
// n > 1 the n+1 that are held at one instant. Locks are taken in path
// order, so the holds returned are the same for the same history.
//
// It decides exactly, without search: the history is linearizable
// (against the porcupine model of a mutex, read/write lock or semaphore
// per path, an acquire taking effect between its call and its return, a
// release at its call) if and only if, each hold taken from its Start to
// its End, no two holds on one lock that are not both reads overlap (n <=
// 1), or no instant sees more than n holds that are not reads (n > 1).
// The proof: taking every acquire at its return and every release at its
// call gives each hold its shortest possible span, so any linearization
// can only widen the spans conflicting holds must keep apart; and holds
// that merely touch (one's End is the other's Start) can be ordered
// release first. Property tests check both against porcupine's search.
func Locks(holds []Hold, n int) []Hold {
	if n > 1 {
		return overLeased(holds, n)
	}
	if a, b, found := conflict(holds); found {
		return []Hold{a, b}
	}
	return nil
}

// WriteHTML writes porcupine's timeline of the history of the lock on
// which Locks(holds, n) found the history not linearizable, to path. A
// linearizable history has no timeline. Porcupine's search behind it is
// bounded by a number of steps, not by time, so the file is the same on
// every machine; it illustrates the verdict and does not decide it.
func WriteHTML(holds []Hold, n int, path string) error {
	over := Locks(holds, n)
	if over == nil {
		return fmt.Errorf("linearize: no timeline: the history was linearizable")
	}
	failed := slices.DeleteFunc(slices.Clone(holds), func(h Hold) bool { return h.Lock != over[0].Lock })
	_, info, _ := porcupineLocks(failed, n, timelineSteps)
	return porcupine.VisualizePath(modelFor(n), info, path)
}

// conflict finds two holds on one lock, not both reads, that overlap: each
// starts before the other ends. Locks are taken in path order and holds by
// Start, so the pair reported is the same for the same history.
//
// Sorted by (Start, End), a hold b overlaps an earlier hold a exactly when
// b starts before a ends; so one pass per lock that remembers the
// latest-ending write and read so far finds a conflict if there is one.
func conflict(holds []Hold) (a, b Hold, found bool) {
	if len(holds) > 0 && !slices.ContainsFunc(holds, func(h Hold) bool { return h.Lock != holds[0].Lock }) {
		// One lock, as a simulator's workload has: sorted in place of a
		// copy when the holds come sorted, as they usually do.
		hs := holds
		if !slices.IsSortedFunc(hs, byStart) {
			hs = slices.Clone(holds)
			slices.SortStableFunc(hs, byStart)
		}
		return conflictOn(hs)
	}
	byLock := map[string][]Hold{}
	for _, h := range holds {
		byLock[h.Lock] = append(byLock[h.Lock], h)
	}
	locks := make([]string, 0, len(byLock))
	for l := range byLock {
		locks = append(locks, l)
	}
	sort.Strings(locks)
	for _, l := range locks {
		hs := byLock[l]
		slices.SortStableFunc(hs, byStart)
		if a, b, found := conflictOn(hs); found {
			return a, b, true
		}
	}
	return Hold{}, Hold{}, false
}

// byStart orders one lock's holds by (Start, End).
func byStart(x, y Hold) int {
	return cmp.Or(cmp.Compare(x.Start, y.Start), cmp.Compare(end(x), end(y)))
}

// conflictOn scans the holds of one lock, sorted by (Start, End).
func conflictOn(hs []Hold) (a, b Hold, found bool) {
	var write, read Hold // the latest-ending write and read so far
	hasWrite, hasRead := false, false
	for _, h := range hs {
		switch {
		case hasWrite && h.Start < end(write):
			return write, h, true
		case h.Mode != Read && hasRead && h.Start < end(read):
			return read, h, true
		}
		if h.Mode == Read {
			if !hasRead || end(h) > end(read) {
				read, hasRead = h, true
			}
		} else if !hasWrite || end(h) > end(write) {
			write, hasWrite = h, true
		}
	}
	return Hold{}, Hold{}, false
}

func end(h Hold) int64 {
	if h.End < 0 {
		return 1 << 62
	}
	return h.End
}

type lockInput struct {
	acquire bool
	mode    Mode
	client  int
	lock    string
}

type lockState struct {
	writer  int    // -1: none
	readers string // the reading clients, sorted, a client once per read it holds
}

// lockModel is a mutex (Exclusive) or read/write lock (Read, Write) per
// lock path; an Exclusive hold is a write. Read holds are counted per
// client, so one client may hold two reads at once, as readers may.
var lockModel = porcupine.Model{
	Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
		byLock := map[string][]porcupine.Operation{}
		var keys []string
		for _, op := range h {
			l := op.Input.(lockInput).lock
			if _, ok := byLock[l]; !ok {
				keys = append(keys, l)
			}
			byLock[l] = append(byLock[l], op)
		}
		sort.Strings(keys)
		out := make([][]porcupine.Operation, len(keys))
		for i, k := range keys {
			out[i] = byLock[k]
		}
		return out
	},
	Init:  func() interface{} { return lockState{writer: -1} },
	Step:  stepLock,
	Equal: func(a, b interface{}) bool { return a.(lockState) == b.(lockState) },
	DescribeOperation: func(input, _ interface{}) string {
		in := input.(lockInput)
		verb := "release"
		if in.acquire {
			verb = "acquire"
		}
		return fmt.Sprintf("c%d %s %s %s", in.client+1, verb, in.mode, in.lock)
	},
	DescribeState: func(state interface{}) string {
		s := state.(lockState)
		switch {
		case s.writer >= 0:
			return fmt.Sprintf("held by c%d", s.writer+1)
		case s.readers != "":
			return "read by " + s.readers
		}
		return "free"
	},
}

func stepLock(state, input, _ interface{}) (bool, interface{}) {
	s, in := state.(lockState), input.(lockInput)
	readers := decodeReaders(s.readers)
	switch {
	case in.acquire && in.mode == Read:
		if s.writer >= 0 {
			return false, s
		}
		readers = append(readers, in.client)
		return true, lockState{writer: -1, readers: encodeReaders(readers)}
	case in.acquire:
		if s.writer >= 0 || len(readers) > 0 {
			return false, s
		}
		return true, lockState{writer: in.client, readers: s.readers}
	case in.mode == Read:
		i := slices.Index(readers, in.client)
		if i < 0 {
			return false, s
		}
		readers = slices.Delete(readers, i, i+1)
		return true, lockState{writer: s.writer, readers: encodeReaders(readers)}
	default:
		if s.writer != in.client {
			return false, s
		}
		return true, lockState{writer: -1, readers: s.readers}
	}
}

func encodeReaders(ids []int) string {
	slices.Sort(ids)
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, "c%d ", id+1)
	}
	return b.String()
}

func decodeReaders(s string) []int {
	var ids []int
	for _, f := range strings.Fields(s) {
		var id int
		if _, err := fmt.Sscanf(f, "c%d", &id); err == nil {
			ids = append(ids, id-1)
		}
	}
	return ids
}

// lockOps is the history of holds as porcupine operations: an acquire
// from its call to its return, a release at its call. Times are doubled so
// that a release (2End to 2End+1) ends before an acquire called at the
// next instant starts.
func lockOps(holds []Hold) []porcupine.Operation {
	var ops []porcupine.Operation
	for _, h := range holds {
		ops = append(ops, porcupine.Operation{
			ClientId: h.Client, Input: lockInput{true, h.Mode, h.Client, h.Lock},
			Call: 2 * h.Call, Return: 2 * h.Start,
		})
		if h.End >= 0 {
			ops = append(ops, porcupine.Operation{
				ClientId: h.Client, Input: lockInput{false, h.Mode, h.Client, h.Lock},
				Call: 2 * h.End, Return: 2*h.End + 1,
			})
		}
	}
	return ops
}

// porcupineLocks runs porcupine's search on the holds of a lock of n
// leases (modelFor), bounded by steps model steps; undecided reports that
// the bound was reached.
func porcupineLocks(holds []Hold, n int, steps int64) (res porcupine.CheckResult, info porcupine.LinearizationInfo, undecided bool) {
	m, b := bounded(modelFor(n), steps)
	res, info = porcupine.CheckOperationsVerbose(m, lockOps(holds), 0)
	return res, info, b.reached()
}
