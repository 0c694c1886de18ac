package sim

import (
	"cmp"
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/linearize"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/zkapi"
)

// Workload is the standard lock workload: clients repeatedly acquire a
// lock, hold it, write to a protected resource with their fencing token,
// and release it.
type Workload struct {
	Recipe       lock.Recipe
	Dir          string // lock directory; default /locks/l
	Clients      int    // default 5
	Acquisitions int    // per client; default 3
	HoldTicks    int    // virtual time inside the critical section; default 1
	ReadPercent  int    // share of read acquisitions, for recipes with AcquireRead
	TimeoutTicks int    // acquire deadline in virtual time; 0: none
	// TimeoutPercent is the share of acquisitions that use TimeoutTicks;
	// default 100. Clients that give up beside clients that wait forever
	// expose leaks as deadlocks.
	TimeoutPercent int
	Unfenced       bool // write with a plain set even when the lease can fence
	// SequenceStart, if not 0, creates Dir before the run with its
	// sequence counter at this value: near 2^31-1 to meet the overflow
	// (behaviour per Config.Server.Overflow).
	SequenceStart int32
}

// Resource is the protected resource: a znode whose writes carry tokens.
const Resource = "/resource"

func (w Workload) withDefaults() Workload {
	w.Dir = cmp.Or(w.Dir, "/locks/l")
	w.Clients = cmp.Or(w.Clients, 5)
	w.Acquisitions = cmp.Or(w.Acquisitions, 3)
	w.HoldTicks = cmp.Or(w.HoldTicks, 1)
	w.TimeoutPercent = cmp.Or(w.TimeoutPercent, 100)
	return w
}

// History is what a workload run observed.
type History struct {
	Holds    []linearize.Hold
	Accepted []linearize.Accepted
	Wakeups  []linearize.Wakeup
	sessions []int64 // per hold: the session that held it
	finished []bool  // per client: its program returned (it did not crash)
}

// Report is a checked run.
type Report struct {
	Result     *Result
	History    *History
	Violations []linearize.Violation
	Herd       map[int64]int // clients woken per change
	Deletes    []int64       // zxids of the deletes clients made (releases, give-ups)
	lockReport linearize.LockReport
}

// OK reports whether no checker found a violation.
func (r *Report) OK() bool { return len(r.Violations) == 0 }

// WriteHTML writes the porcupine timeline of the critical sections.
func (r *Report) WriteHTML(path string) error { return r.lockReport.WriteHTML(path) }

// Classes lists the violation classes found, sorted, without repeats.
func (r *Report) Classes() []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range r.Violations {
		if !seen[v.Class] {
			seen[v.Class] = true
			out = append(out, v.Class)
		}
	}
	sort.Strings(out)
	return out
}

// RunWorkload runs the workload under cfg with choices from ch and checks
// the run with every checker.
func RunWorkload(cfg Config, ch Chooser, w Workload) (*Report, error) {
	return runWorkload(cfg, ch, w, nil)
}

// runWorkload is RunWorkload with prepare called on the run before it
// starts (Explore installs its hooks there). A run a hook cut short is
// not checked: its Report has only the Result.
func runWorkload(cfg Config, ch Chooser, w Workload, prepare func(s *Sim, h *History)) (*Report, error) {
	w = w.withDefaults()
	h := &History{finished: make([]bool, w.Clients)}
	userSetup := cfg.Setup
	cfg.Setup = func(m *fakezk.Machine) {
		info, _ := m.CreateSession(0, 10000)
		m.Do(info.ID, fakezk.Create{Path: Resource, Data: []byte("0")})
		if w.SequenceStart != 0 {
			segs := strings.Split(strings.TrimPrefix(w.Dir, "/"), "/")
			for i := range segs {
				m.Do(info.ID, fakezk.Create{Path: "/" + strings.Join(segs[:i+1], "/")})
			}
			m.SetSequence(w.Dir, w.SequenceStart)
		}
		m.CloseSession(info.ID)
		if userSetup != nil {
			userSetup(m)
		}
	}
	programs := make([]Program, w.Clients)
	for i := range programs {
		programs[i] = w.program(h)
	}
	s, err := newSim(cfg, ch)
	if err != nil {
		return nil, err
	}
	if prepare != nil {
		prepare(s, h)
	}
	res := s.run(programs)
	rep := &Report{Result: res, History: h, Deletes: s.deletes}
	if !s.cut {
		rep.check(s, w)
	}
	return rep, nil
}

func (w Workload) program(h *History) Program {
	return func(ctx context.Context, c *Client) error {
		conn := &waitNoting{Conn: c.Conn(), c: c}
		for i := range w.Acquisitions {
			read := w.Recipe.AcquireRead != nil && c.chance(w.ReadPercent, "read?")
			w.once(ctx, c, conn, h, i, read)
		}
		h.finished[c.idx] = true
		return nil
	}
}

// once is one acquire-hold-write-release cycle. Acquire errors are part
// of life under faults; the checkers judge the outcome.
func (w Workload) once(ctx context.Context, c *Client, conn zkapi.Conn, h *History, i int, read bool) {
	acquire, mode := w.Recipe.Acquire, linearize.Exclusive
	if w.Recipe.AcquireRead != nil {
		mode = linearize.Write
		if read {
			acquire, mode = w.Recipe.AcquireRead, linearize.Read
		}
	}
	actx, cancel := ctx, context.CancelFunc(func() {})
	if w.TimeoutTicks > 0 && (w.TimeoutPercent >= 100 || c.chance(w.TimeoutPercent, "timeout?")) {
		actx, cancel = c.WithTimeout(ctx, w.TimeoutTicks)
	}
	defer cancel()
	call := int64(c.sim.step)
	c.acquiring = mode
	held, err := acquire(actx, conn, w.Dir, c.Name()+"_"+strconv.Itoa(i))
	c.acquiring, c.holding = heldNone, err == nil
	defer func() { c.holding = false }()
	if err != nil {
		c.sim.received = append(c.sim.received, received{client: c.idx, held: gaveUp})
		c.Logf("acquire %s failed: %v", mode, err)
		return
	}
	hold := len(h.Holds)
	h.Holds = append(h.Holds, linearize.Hold{Client: c.idx, Lock: w.Dir, Mode: mode, Call: call, Start: int64(c.sim.step), End: -1})
	c.sim.received = append(c.sim.received, received{client: c.idx, held: mode})
	h.sessions = append(h.sessions, c.session)
	if !c.sim.cfg.NoTrace {
		c.Logf("holds %s (%s)", w.Dir, mode)
	}
	// The token is taken at acquisition, as an application would, and used
	// after the work: a holder paused in between writes with a stale one.
	token, tokenErr := int64(0), error(nil)
	tok, hasToken := held.(lock.Tokener)
	if hasToken && mode != linearize.Read {
		token, tokenErr = tok.Token(ctx)
	}
	c.Sleep(ctx, w.HoldTicks)
	if hasToken && mode != linearize.Read {
		if tokenErr != nil {
			c.Logf("token: %v", tokenErr)
		} else {
			w.write(ctx, c, h, held, token)
		}
	}
	h.Holds[hold].End = int64(c.sim.step)
	c.holding = true // the release's delete is a holder's
	if err := held.Release(ctx); err != nil {
		c.Logf("release: %v", err)
	}
}

// write stores the holder's token in the resource, fenced when it can be.
func (w Workload) write(ctx context.Context, c *Client, h *History, held lock.Held, token int64) {
	data := []byte(fmt.Sprint(token))
	var (
		st  zkapi.Stat
		err error
	)
	if f, ok := held.(lock.Fencer); ok && !w.Unfenced {
		var res []zkapi.OpResult
		res, err = f.Fenced(ctx, zkapi.SetOp{Path: Resource, Data: data, Version: -1})
		if err == nil && len(res) > 0 {
			st = res[0].Stat
		}
	} else {
		st, err = c.Conn().Set(ctx, Resource, data, -1)
	}
	if err != nil {
		c.Logf("write token %d refused: %v", token, err)
		return
	}
	h.Accepted = append(h.Accepted, linearize.Accepted{Client: c.idx, Token: token, Step: int64(c.sim.step), Zxid: st.Mzxid})
}

func (r *Report) check(s *Sim, w Workload) {
	h, res := r.History, r.Result
	// A hold ends when its session lost the lock, if that came first.
	for i := range h.Holds {
		if at, ok := s.expired[h.sessions[i]]; ok && (h.Holds[i].End < 0 || at < h.Holds[i].End) && at >= h.Holds[i].Start {
			h.Holds[i].End = at
		}
	}
	r.lockReport = linearize.CheckLocks(h.Holds)
	r.Violations = append(r.Violations, r.lockReport.Violations...)

	r.Violations = append(r.Violations, linearize.CheckFencing(h.Accepted)...)

	h.Wakeups = s.wakeups(w.Dir)
	herd, counts := linearize.CheckHerd(h.Wakeups, w.herdLimit(s))
	r.Herd = counts
	r.Violations = append(r.Violations, herd...)

	if !res.Deadlock && !res.Bounded {
		r.Violations = append(r.Violations, linearize.CheckOrphans(w.Dir, s.orphans(w.Dir, h.finished))...)
	}
	r.Violations = append(r.Violations, res.verdicts()...)
}

// Marks the workload adds to the herd checker's timeline (Sim.received)
// beside wakeups (heldNone) and holds (a Mode).
const (
	// waitsAgain: a client called Wait on a watch that had not fired: it
	// went back to waiting, so a wakeup it had since its last wait did not
	// let it proceed.
	waitsAgain linearize.Mode = 254 - iota
	// gaveUp: a client's acquisition ended without the lock.
	gaveUp
)

// herdLimit: an exclusive lock may wake one client per change. A
// read/write lock may wake at most one writer, plus, when a holder
// released, the readers it woke that did not have to wait again: those
// that went on to hold, and those that gave up (deadline, session lost) or
// stopped (crash) before waiting again, as a reader woken when it could
// proceed may; and when a waiter gave up, the readers that waited on it
// and must now wait on the writer ahead of it.
func (w Workload) herdLimit(s *Sim) func(int64) int {
	if w.Recipe.AcquireRead == nil {
		return func(int64) int { return 1 }
	}
	proceeded := map[int64]int{} // cause -> woken readers that did not wait again
	readers := map[int64]int{}   // cause -> woken readers
	last := map[int]int64{}      // client -> cause of its wakeup as a reader since it last waited
	for _, r := range s.received {
		switch r.held {
		case heldNone:
			if r.reader {
				readers[r.zxid]++
				last[r.client] = r.zxid
			} else {
				delete(last, r.client)
			}
		case linearize.Read, gaveUp:
			if cause, ok := last[r.client]; ok {
				proceeded[cause]++
			}
			delete(last, r.client)
		default: // waits again, or holds to write
			delete(last, r.client)
		}
	}
	for _, cause := range last { // woken, then never went on: crashed
		proceeded[cause]++
	}
	return func(cause int64) int {
		if s.giveUps[cause] {
			return 1 + readers[cause]
		}
		return 1 + proceeded[cause]
	}
}

// waitNoting is the Conn the workload gives a recipe: the watches it
// returns mark, in the herd checker's timeline, each Wait that will block.
type waitNoting struct {
	zkapi.Conn
	c *Client
}

// ExistsW implements zkapi.Conn.
func (n *waitNoting) ExistsW(ctx context.Context, path string) (zkapi.Stat, bool, zkapi.Watch, error) {
	st, ok, w, err := n.Conn.ExistsW(ctx, path)
	return st, ok, n.watch(w), err
}

// GetW implements zkapi.Conn.
func (n *waitNoting) GetW(ctx context.Context, path string) ([]byte, zkapi.Stat, zkapi.Watch, error) {
	data, st, w, err := n.Conn.GetW(ctx, path)
	return data, st, n.watch(w), err
}

// ChildrenW implements zkapi.Conn.
func (n *waitNoting) ChildrenW(ctx context.Context, path string) ([]string, zkapi.Stat, zkapi.Watch, error) {
	kids, st, w, err := n.Conn.ChildrenW(ctx, path)
	return kids, st, n.watch(w), err
}

func (n *waitNoting) watch(w zkapi.Watch) zkapi.Watch {
	if sw, ok := w.(*watch); ok {
		return notingWatch{sw}
	}
	return w
}

type notingWatch struct{ w *watch }

// Wait implements zkapi.Watch.
func (nw notingWatch) Wait(ctx context.Context) (zkapi.Event, error) {
	if c := nw.w.c; !nw.w.fired && ctx.Err() == nil {
		c.sim.received = append(c.sim.received, received{client: c.idx, held: waitsAgain})
	}
	return nw.w.Wait(ctx)
}

// orphans lists lock nodes owned by the live sessions of clients whose
// programs returned: nobody will ever remove them. A node of a session
// that a client crashed out of, or replaced after losing touch with it, is
// not one: the server removes it when that session expires, which may be
// after the run ends.
func (s *Sim) orphans(dir string, finished []bool) []string {
	owners := map[int64]bool{}
	for _, c := range s.clients {
		if finished[c.idx] {
			owners[c.session] = true
		}
	}
	var out []string
	for _, k := range s.m.Children(dir) {
		if _, st, ok := s.m.Node(dir + "/" + k); ok && owners[st.EphemeralOwner] {
			out = append(out, k)
		}
	}
	return out
}

// wakeups lists the watch notifications clients received about dir and
// its children.
func (s *Sim) wakeups(dir string) []linearize.Wakeup {
	var out []linearize.Wakeup
	for _, n := range s.received {
		if n.held == heldNone && (n.path == dir || strings.HasPrefix(n.path, dir+"/")) {
			out = append(out, linearize.Wakeup{Client: n.client, Cause: n.zxid, Path: n.path})
		}
	}
	return out
}
