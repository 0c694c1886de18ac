package linearize

import (
	"fmt"
	"sort"
	"time"

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
}

type lockInput struct {
	acquire bool
	mode    Mode
	client  int
	lock    string
}

type lockState struct {
	writer  int // -1: none
	readers string
}

// lockModel is a mutex (Exclusive) or read/write lock (Read, Write) per
// lock path; a Read or Write hold excludes an Exclusive one on the same
// path, which cannot happen in well-formed histories anyway.
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
	Init: func() interface{} { return lockState{writer: -1} },
	Step: func(state, input, _ interface{}) (bool, interface{}) {
		s, in := state.(lockState), input.(lockInput)
		readers := decodeSet(s.readers)
		switch {
		case in.acquire && in.mode == Read:
			if s.writer >= 0 {
				return false, s
			}
			readers[in.client] = true
			return true, lockState{writer: -1, readers: encodeSet(readers)}
		case in.acquire:
			if s.writer >= 0 || len(readers) > 0 {
				return false, s
			}
			return true, lockState{writer: in.client, readers: s.readers}
		case in.mode == Read:
			if !readers[in.client] {
				return false, s
			}
			delete(readers, in.client)
			return true, lockState{writer: s.writer, readers: encodeSet(readers)}
		default:
			if s.writer != in.client {
				return false, s
			}
			return true, lockState{writer: -1, readers: s.readers}
		}
	},
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

func encodeSet(set map[int]bool) string {
	ids := make([]int, 0, len(set))
	for id := range set {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	s := ""
	for _, id := range ids {
		s += fmt.Sprintf("c%d ", id+1)
	}
	return s
}

func decodeSet(s string) map[int]bool {
	set := map[int]bool{}
	var id int
	for len(s) > 0 {
		n, _ := fmt.Sscanf(s, "c%d ", &id)
		if n != 1 {
			break
		}
		set[id-1] = true
		s = s[len(fmt.Sprintf("c%d ", id)):]
	}
	return set
}

// LockReport is the outcome of CheckLocks.
type LockReport struct {
	Violations []Violation
	info       porcupine.LinearizationInfo
	ok         bool
}

// OK reports whether the history was linearizable.
func (r LockReport) OK() bool { return r.ok }

// WriteHTML writes porcupine's timeline of the history to path (only a
// failed check has one).
func (r LockReport) WriteHTML(path string) error {
	if r.ok {
		return fmt.Errorf("linearize: no timeline: the history was linearizable")
	}
	return porcupine.VisualizePath(lockModel, r.info, path)
}

// CheckLocks checks mutual and reader/writer exclusion: whether the holds
// can be ordered so that no two overlap unless both are reads. Histories
// whose conflicting holds are strictly apart are linearizable as they
// stand (each acquire at its return, each release at its call) and are
// passed without search; any other goes to porcupine, which decides it and
// records what WriteHTML renders.
func CheckLocks(holds []Hold) LockReport {
	if apart(holds) {
		return LockReport{ok: true}
	}
	return porcupineCheck(holds)
}

// checkWithPorcupine is the slow path alone, for tests of the fast one.
func checkWithPorcupine(holds []Hold) bool { return porcupineCheck(holds).ok }

func porcupineCheck(holds []Hold) LockReport {
	var ops []porcupine.Operation
	rw := false
	for _, h := range holds {
		rw = rw || h.Mode != Exclusive
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
	res, info := porcupine.CheckOperationsVerbose(lockModel, ops, time.Minute)
	r := LockReport{info: info, ok: res == porcupine.Ok}
	if !r.ok {
		class := MutualExclusion
		if rw {
			class = RWExclusion
		}
		r.Violations = append(r.Violations, Violation{Class: class, Detail: overlaps(holds)})
	}
	return r
}

// apart reports whether, per lock, no two holds that conflict (not both
// reads) touch or overlap in time.
func apart(holds []Hold) bool {
	byLock := map[string][]Hold{}
	for _, h := range holds {
		byLock[h.Lock] = append(byLock[h.Lock], h)
	}
	for _, hs := range byLock {
		sort.Slice(hs, func(i, j int) bool { return hs[i].Start < hs[j].Start })
		var lastWriteEnd, readEnd int64 = -1, -1 // latest ends so far
		for _, h := range hs {
			if h.Start <= lastWriteEnd || (h.Mode != Read && h.Start <= readEnd) {
				return false
			}
			if h.Mode == Read {
				readEnd = max(readEnd, end(h))
			} else {
				lastWriteEnd = max(lastWriteEnd, end(h))
			}
		}
	}
	return true
}

// overlaps names the first two conflicting holds, for the report.
func overlaps(holds []Hold) string {
	for i, a := range holds {
		for _, b := range holds[i+1:] {
			if a.Lock != b.Lock || a.Client == b.Client || (a.Mode == Read && b.Mode == Read) {
				continue
			}
			if a.Start < end(b) && b.Start < end(a) {
				return fmt.Sprintf("c%d (%s, %d-%s) and c%d (%s, %d-%s) both held %s",
					a.Client+1, a.Mode, a.Start, endString(a), b.Client+1, b.Mode, b.Start, endString(b), a.Lock)
			}
		}
	}
	return "no linearization of the critical sections exists"
}

func end(h Hold) int64 {
	if h.End < 0 {
		return 1 << 62
	}
	return h.End
}

func endString(h Hold) string {
	if h.End < 0 {
		return "end"
	}
	return fmt.Sprint(h.End)
}
