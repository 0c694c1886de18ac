package harness

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	pathpkg "path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/internal/simhook"
	"github.com/zksim/zksim/linearize"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/report"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zkapi"
)

// Workload is the settings of the standard lock workload (Lock): clients
// repeatedly acquire a lock, hold it, write to a protected resource with
// their fencing token, and release it. Zero means the default.
type Workload struct {
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

// Lock is the lock workload of r with the settings w, a Subject: its
// trace files' recipe line is r.Name. The checkers (its Report): mutual
// or reader/writer exclusion, at most r.Leases holders for a semaphore,
// an election's terms, herd, fencing, orphans and liveness.
// harnesstest.Check draws the settings w leaves at 0 (see there); Run,
// Explore and Replay run it as given.
func Lock(r recipe.Lock, w Workload) Subject { return lockWorkload{Workload: w, Recipe: r} }

// lockWorkload is the Subject Lock makes.
type lockWorkload struct {
	Workload
	Recipe recipe.Lock
}

// LockSettings is what Lock was given: harnesstest draws its checks
// within them.
func (w lockWorkload) LockSettings() (recipe.Lock, Workload) { return w.Recipe, w.Workload }

// resource is the protected resource: a znode whose writes carry tokens.
const resource = "/resource"

func (w lockWorkload) withDefaults() lockWorkload {
	w.Dir = cmp.Or(w.Dir, "/locks/l")
	w.Clients = cmp.Or(w.Clients, 5)
	w.Acquisitions = cmp.Or(w.Acquisitions, 3)
	w.HoldTicks = cmp.Or(w.HoldTicks, 1)
	w.TimeoutPercent = cmp.Or(w.TimeoutPercent, 100)
	return w
}

// history is what a lock workload run observed.
type history struct {
	Holds    []linearize.Hold
	Accepted []checkers.Accepted
	Wakeups  []checkers.Wakeup
	sessions []int64 // per hold: the session that held it
	writers  []int   // per accepted write: its hold
}

// Report is a checked run of any Subject, what its Judge made of it: a
// user's Subject fills Result and Violations (and Notes, Herd if it has
// them); the lock and barrier workloads' say more.
type Report struct {
	Result     *sim.Result
	Violations []check.Violation
	// Notes are findings that fail nothing (check.Undecided,
	// check.StaleWakeup): a stale wake-up of a replaced session.
	Notes    []check.Violation
	Herd     map[int64]int   // clients woken per change (the lock and barrier workloads)
	Deletes  []int64         // zxids of the deletes clients made (the lock workload: releases, give-ups)
	history  *history        // the lock workload's, for the HTML report
	expiries []report.Expiry // the clients' sessions the server expired, for the HTML report
}

// OK reports whether no checker found a violation.
func (r *Report) OK() bool { return len(r.Violations) == 0 }

// Classes lists the violation classes found, sorted, without repeats.
func (r *Report) Classes() []check.Class {
	seen := map[check.Class]bool{}
	var out []check.Class
	for _, v := range r.Violations {
		if !seen[v.Class] {
			seen[v.Class] = true
			out = append(out, v.Class)
		}
	}
	slices.Sort(out)
	return out
}

// Name implements Subject: the recipe's.
func (w lockWorkload) Name() string { return w.Recipe.Name }

// Spec implements Subject, defaults applied.
func (w lockWorkload) Spec() string {
	w = w.withDefaults()
	return fmt.Sprintf("clients=%d acquisitions=%d hold=%d read=%d timeout=%d timeout-percent=%d unfenced=%t dir=%s sequence-start=%d",
		w.Clients, w.Acquisitions, w.HoldTicks, w.ReadPercent, w.TimeoutTicks, w.TimeoutPercent, w.Unfenced, w.Dir, w.SequenceStart)
}

// Parse implements Subject: the workload of w's recipe that spec says.
func (w lockWorkload) Parse(spec string) (Subject, error) {
	p := lockWorkload{Recipe: w.Recipe}
	if err := keyvals(splitSpec(spec), map[string]any{"clients": &p.Clients, "acquisitions": &p.Acquisitions,
		"hold": &p.HoldTicks, "read": &p.ReadPercent, "timeout": &p.TimeoutTicks, "timeout-percent": &p.TimeoutPercent,
		"unfenced": &p.Unfenced, "dir": &p.Dir, "sequence-start": &p.SequenceStart}); err != nil {
		return nil, err
	}
	return p, nil
}

// Shape implements Subject.
func (w lockWorkload) Shape() Shape {
	w = w.withDefaults()
	return Shape{Clients: w.Clients, Each: w.Acquisitions, Unit: "acquisitions"}
}

// Resize implements Subject.
func (w lockWorkload) Resize(s Shape) Subject {
	w.Clients, w.Acquisitions = s.Clients, s.Each
	return w
}

// Start implements Subject: it sets the ensemble up for the workload,
// and returns its clients' programs and the judge of the run.
func (w lockWorkload) Start(s *sim.Sim) ([]sim.Program, Judge) {
	programs, run := w.start(s, spareRuns.take())
	return programs, run
}

// start is Start with the run made in spare (nil: a new one).
func (w lockWorkload) start(s *sim.Sim, spare *lockRun) ([]sim.Program, *lockRun) {
	w = w.withDefaults()
	r := newLockRun(s, w, spare)
	m := s.State().(*machine.Machine) // the whole Machine: sim hands the module no other
	info, _ := m.CreateSession(0, 10000)
	m.Do(info.ID, proto.Create{Path: resource, Data: []byte("0")})
	if w.SequenceStart != 0 {
		segs := strings.Split(strings.TrimPrefix(w.Dir, "/"), "/")
		for i := range segs {
			m.Do(info.ID, proto.Create{Path: "/" + strings.Join(segs[:i+1], "/")})
		}
		m.SetSequence(w.Dir, w.SequenceStart)
	}
	m.CloseSession(info.ID)
	simhook.AddObserver(s, simhook.Observer[*sim.Client](r))
	programs := make([]sim.Program, w.Clients)
	program := w.program(r) // one closure: every client runs the same
	for i := range programs {
		programs[i] = program
	}
	return programs, r
}

// A run records about one hold, write and release per acquisition, a
// lock node per acquisition besides the directory and its ancestors, and
// two to three wake-ups, waits and holds per acquisition on the herd
// checker's timeline: newHistory and newLockRun make that room at the
// start, so that the appends of a run seldom grow their slices (each
// growth is an allocation and a copy).

// newHistory is an empty history with room for n acquisitions.
func newHistory(n int) *history {
	return &history{Holds: make([]linearize.Hold, 0, n), sessions: make([]int64, 0, n),
		Accepted: make([]checkers.Accepted, 0, n), writers: make([]int, 0, n)}
}

// newLockRun is a new run of w on s, made in spare (nil: a new one), an
// earlier run whose Report is made: its records that no Report keeps
// (the run's own, not the history, deletes or expiries) are emptied and
// used again, which spares a schedule their allocation and keeps their
// memory in the cache. Every field is set by the one literal below, so a
// run made in a spare is a new one but for the room of its slices and
// maps (TestLockRun_Reused).
func newLockRun(s *sim.Sim, w lockWorkload, spare *lockRun) *lockRun {
	n := w.Clients * w.Acquisitions
	nodes := n + strings.Count(w.Dir, "/")
	r := spare
	if r == nil {
		r = new(lockRun)
	}
	clear(r.giveUps) // nil stays nil: made on first use
	clear(r.expired)
	*r = lockRun{s: s, w: w, h: newHistory(n), deletes: make([]int64, 0, n),
		acquiring: zeroed(r.acquiring, w.Clients), holding: zeroed(r.holding, w.Clients),
		received: emptied(r.received, 3*n), giveUps: r.giveUps, expired: r.expired,
		made: newCreations(w.Clients, nodes, r.made), story: story{nodes: emptied(r.story.nodes, nodes)},
		callSession: zeroed(r.callSession, w.Clients), fenceOps: zeroed(r.fenceOps, w.Clients)}
	return r
}

// zeroed is buf's array as n zero values, or a new one if it has not
// the room.
func zeroed[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}

// emptied is buf's array, cleared (it may hold strings of the last run),
// as an empty slice with room for n, or a new one if it has not the room.
func emptied[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, 0, n)
	}
	clear(buf[:cap(buf)])
	return buf[:0]
}

// spareRuns are runs whose Report is made, for the next runs to be made
// in (newLockRun): Run hands its run back, so that a worker running
// schedule after schedule reuses one run's room. Bounded: a run handed
// back to a full store is left to the collector.
var spareRuns = spares[lockRun]{max: 64}

// spares is a bounded store of spare T for reuse, safe for concurrent
// use.
type spares[T any] struct {
	mu  sync.Mutex
	max int
	all []*T
}

// take is a spare, or nil if there is none.
func (sp *spares[T]) take() *T {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	n := len(sp.all)
	if n == 0 {
		return nil
	}
	t := sp.all[n-1]
	sp.all[n-1] = nil
	sp.all = sp.all[:n-1]
	return t
}

// give hands t over as a spare, unless the store is full.
func (sp *spares[T]) give(t *T) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if len(sp.all) < sp.max {
		sp.all = append(sp.all, t)
	}
}

// done implements spent: Run has made the run's Report, and nothing
// calls the run again.
func (run *lockRun) done() { spareRuns.give(run.forget()) }

// forget drops what run shares with its Report and its Sim, which a
// spare must neither keep alive nor write, and returns run.
func (run *lockRun) forget() *lockRun {
	run.s, run.h, run.deletes, run.expiries = nil, nil, nil, nil
	return run
}

// lockRun is one run of the workload as its checkers see it: the
// critical sections, and (observing the scheduler) the timeline of
// wakeups, waits and holds the herd checker reads, the deletes made by
// clients that did not hold the lock, and the sessions that expired.
type lockRun struct {
	s         *sim.Sim
	w         lockWorkload
	h         *history
	visible   int              // holds begun and ended: what the exclusion checkers see
	acquiring []linearize.Mode // per client: what it is acquiring (heldNone: nothing)
	holding   []bool           // per client: it holds the lock (or is releasing it)
	received  []received
	giveUps   map[int64]bool   // zxids of deletes by clients not holding the lock (made on first use)
	deletes   []int64          // zxids of the clients' successful deletes, in order
	expired   map[int64]expiry // session -> when it expired (made on first use: most runs have none)
	expiries  []report.Expiry  // the same, by client, in order
	made      *creations       // the nodes the clients created, for the orphan checker
	// story is the lock nodes and what became of them, for the causes.
	story story
	// callSession is, per client acquiring, its session when it called
	// Acquire (0: not acquiring): see stale.
	callSession []int64
	// fenceOps is, per client, the ops of its fenced write: the array a
	// write hands to Fenced, kept rather than made per write (Fenced
	// reads its ops before it returns; the recipes' copy them at once).
	fenceOps [][1]zkapi.Op
}

// expiry is when a session expired: the step, and the zxid of the close.
type expiry struct{ step, zxid int64 }

// received is a wakeup (held heldNone), or a mark of the workload's: the
// moment a client began to hold a lock (a Mode), waited again or gave up:
// one timeline, in step order, for the herd checker.
type received struct {
	client int
	zxid   int64
	path   string
	step   int // when it was delivered
	held   linearize.Mode
	reader bool // a notification to a client acquiring for reading
	stale  bool // checkers.Wakeup.Stale
}

// heldNone marks a received entry that is a notification.
const heldNone linearize.Mode = 255

// Applied implements Observer: a successful delete by a client that does
// not hold the lock is a give-up; creates are noted for the orphan
// checker, and creates and deletes for the story (the causes). Every
// applied request comes here, most of them reads or failed: one check
// of the error and one type switch send them back at once, and the
// three records share the switch.
func (run *lockRun) Applied(c *sim.Client, req proto.Request, rep *proto.Reply) {
	if rep.Err != nil {
		return // a failed request created and deleted nothing
	}
	switch r := req.(type) {
	case proto.Create:
		run.created(c, rep.Path, r.Mode, rep.Zxid)
	case proto.Delete:
		run.story.remove(c.Index(), r.Path, run.s.Step(), rep.Zxid)
		run.deletes = append(run.deletes, rep.Zxid)
		if !run.holding[c.Index()] {
			run.giveUp(rep.Zxid)
		}
	case proto.Multi:
		run.multi(c, r, rep)
	}
}

// Expired implements Observer: the expiry of a session that did not hold
// the lock is a give-up; one that did ends its hold.
func (run *lockRun) Expired(session, zxid int64) {
	if run.expired == nil {
		run.expired = map[int64]expiry{}
	}
	run.expired[session] = expiry{int64(run.s.Step()), zxid}
	holder, owner := false, -1
	for _, c := range run.s.Clients() {
		if c.Session() == session {
			holder, owner = run.holding[c.Index()], c.Index()
		}
	}
	if owner < 0 { // a session its client had given up: the story knows whose
		if i := slices.IndexFunc(run.story.nodes, func(n nodeRec) bool { return n.session == session }); i >= 0 {
			owner = run.story.nodes[i].client
		}
	}
	if owner >= 0 {
		run.expiries = append(run.expiries, report.Expiry{Step: run.s.Step(), Client: owner})
	}
	if !holder {
		run.giveUp(zxid)
	}
	run.story.expire(session, run.s.Step(), zxid)
}

// giveUp marks the change zxid as a give-up.
func (run *lockRun) giveUp(zxid int64) {
	if run.giveUps == nil {
		run.giveUps = map[int64]bool{}
	}
	run.giveUps[zxid] = true
}

// Woken implements Observer.
func (run *lockRun) Woken(c *sim.Client, path string, zxid int64) {
	run.received = append(run.received, received{client: c.Index(), zxid: zxid, path: path, held: heldNone,
		reader: run.acquiring[c.Index()] == linearize.Read, step: run.s.Step(), stale: run.stale(c, path, zxid)})
}

// stale says whether waking c by the change zxid, a notification about
// path, is a stale wake-up (checkers.Wakeup.Stale): the change deleted the
// very node c watched (as a herd-free queue's waiter watches its
// predecessor), c's session was replaced since it called Acquire, and c
// has no node left in the queue: it waits for the place of a session it
// has given up, whose node has gone, beside the client that rightly
// waits on that node now. A client with a node still queued holds a
// place, and a wake-up through a watch on the directory wakes every
// waiter by design: neither is stale.
func (run *lockRun) stale(c *sim.Client, path string, zxid int64) bool {
	// The session first: it was seldom replaced, and the story's nodes
	// are searched only when it was.
	s := run.callSession[c.Index()]
	if s == 0 || s == c.Session() {
		return false
	}
	n := run.story.deletedBy(zxid)
	return n != nil && n.path == path && !run.story.queued(c.Index(), pathpkg.Dir(n.path))
}

// Blocks implements Observer.
func (run *lockRun) Blocks(c *sim.Client) {
	run.received = append(run.received, received{client: c.Index(), held: waitsAgain})
}

func (w lockWorkload) program(r *lockRun) sim.Program {
	return func(ctx context.Context, c *sim.Client) error {
		ids := holderIDs(c.Name(), w.Acquisitions)
		for range w.Acquisitions {
			read := w.Recipe.AcquireRead != nil && c.Chance(w.ReadPercent, "read?")
			var id string
			id, ids, _ = strings.Cut(ids, " ")
			w.once(ctx, c, r, id, read)
		}
		r.made.finish(c)
		return nil
	}
}

// holderIDs are the holder ids of a client's n acquisitions, name_0 to
// name_{n-1}, one string with a space between them: built once per client
// and run, one allocation, rather than one per acquisition.
func holderIDs(name string, n int) string {
	var b strings.Builder
	var num [20]byte
	b.Grow(n * (len(name) + 2 + len(strconv.AppendInt(num[:0], int64(n), 10))))
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(name)
		b.WriteByte('_')
		b.Write(strconv.AppendInt(num[:0], int64(i), 10))
	}
	return b.String()
}

// once is one acquire-hold-write-release cycle, as holder id. Acquire
// errors are part of life under faults; the checkers judge the outcome.
func (w lockWorkload) once(ctx context.Context, c *sim.Client, r *lockRun, id string, read bool) {
	acquire, mode := w.Recipe.Acquire, linearize.Exclusive
	if w.Recipe.AcquireRead != nil {
		mode = linearize.Write
		if read {
			acquire, mode = w.Recipe.AcquireRead, linearize.Read
		}
	}
	actx, cancel := ctx, context.CancelFunc(func() {})
	if w.TimeoutTicks > 0 && (w.TimeoutPercent >= 100 || c.Chance(w.TimeoutPercent, "timeout?")) {
		actx, cancel = c.WithTimeout(ctx, w.TimeoutTicks)
	}
	defer cancel()
	call := int64(c.Sim().Step())
	h := r.h
	r.acquiring[c.Index()], r.callSession[c.Index()] = mode, c.Session()
	held, err := acquire(actx, c.Conn(), w.Dir, id)
	r.acquiring[c.Index()], r.holding[c.Index()], r.callSession[c.Index()] = heldNone, err == nil, 0
	defer r.notHolding(c.Index())
	if err != nil {
		r.received = append(r.received, received{client: c.Index(), held: gaveUp, step: c.Sim().Step()})
		c.Logf("acquire %s failed: %v", mode, err)
		return
	}
	hold := len(h.Holds)
	r.visible++
	h.Holds = append(h.Holds, linearize.Hold{Client: c.Index(), Lock: w.Dir, Mode: mode, Call: call, Start: int64(c.Sim().Step()), End: -1})
	r.received = append(r.received, received{client: c.Index(), held: mode})
	h.sessions = append(h.sessions, c.Session())
	if c.Sim().Tracing() {
		c.Logf("holds %s (%s)", w.Dir, mode)
	}
	// The token is taken at acquisition, as an application would, and used
	// after the work: a holder paused in between writes with a stale one.
	token, tokenErr := int64(0), error(nil)
	tok, hasToken := held.(interface {
		Token(context.Context) (int64, error)
	})
	if hasToken && mode != linearize.Read {
		token, tokenErr = tok.Token(ctx)
		h.Holds[hold].Token, h.Holds[hold].HasToken = token, tokenErr == nil
	}
	c.Sleep(ctx, w.HoldTicks)
	if hasToken && mode != linearize.Read {
		if tokenErr != nil {
			c.Logf("token: %v", tokenErr)
		} else {
			w.write(ctx, c, h, hold, held, token, &r.fenceOps[c.Index()])
		}
	}
	h.Holds[hold].End = int64(c.Sim().Step())
	r.visible++
	r.holding[c.Index()] = true // the release's delete is a holder's
	if err := held.Release(ctx); err != nil {
		c.Logf("release: %v", err)
	}
}

// notHolding marks client i as not holding the lock: once's end, also
// when a stopped run unwinds it.
func (run *lockRun) notHolding(i int) { run.holding[i] = false }

// write stores the holder's token in the resource, fenced when it can be
// (with ops, the client's array for the fenced write's ops).
func (w lockWorkload) write(ctx context.Context, c *sim.Client, h *history, hold int, held recipe.Held, token int64, ops *[1]zkapi.Op) {
	data := strconv.AppendInt(nil, token, 10) // fmt.Sprint's digits, without fmt
	call := int64(c.Sim().Step())
	var (
		st  zkapi.Stat
		err error
	)
	if f, ok := held.(interface {
		Fenced(context.Context, ...zkapi.Op) ([]zkapi.OpResult, error)
	}); ok && !w.Unfenced {
		var res []zkapi.OpResult
		ops[0] = zkapi.SetOp{Path: resource, Data: data, Version: -1}
		res, err = f.Fenced(ctx, ops[:]...)
		ops[0] = nil // the op's data is the run's history, not the array's
		if err == nil && len(res) > 0 {
			st = res[0].Stat
		}
	} else {
		st, err = c.Conn().Set(ctx, resource, data, -1)
	}
	if err != nil {
		c.Logf("write token %d refused: %v", token, err)
		return
	}
	h.Accepted = append(h.Accepted, checkers.Accepted{Client: c.Index(), Token: token, Step: int64(c.Sim().Step()), Zxid: st.Mzxid, Call: call})
	h.writers = append(h.writers, hold)
}

// Report implements Judge: it checks a run that ended with every checker.
func (run *lockRun) Report(res *sim.Result) *Report {
	r := &Report{Result: res, history: run.h, Deletes: run.deletes, expiries: run.expiries}
	r.check(run)
	run.explain(r)
	return r
}

// Visible implements Judge.
func (run *lockRun) Visible() int { return run.visible }

// Invariant implements Judge: the critical sections open now are
// compatible. A hold is open from its acquisition until its release began
// openHolds yields the holds open now: begun, not yet released, and
// their session not expired since they began. Invariant walks them after
// every step, so it allocates nothing.
func (run *lockRun) openHolds() iter.Seq[linearize.Hold] {
	return func(yield func(linearize.Hold) bool) {
		h := run.h
		for i, hd := range h.Holds {
			if hd.End >= 0 {
				continue
			}
			if e, ok := run.expired[h.sessions[i]]; ok && e.step >= hd.Start {
				continue
			}
			if !yield(hd) {
				return
			}
		}
	}
}

// or its session expired.
func (run *lockRun) Invariant(s *sim.Sim) *check.Violation {
	if run.w.Recipe.Leases > 1 {
		return run.leaseInvariant(s)
	}
	writers, readers, exclusive := 0, 0, false
	var who []int
	for hd := range run.openHolds() {
		who = append(who, hd.Client+1)
		switch hd.Mode {
		case linearize.Read:
			readers++
		case linearize.Exclusive:
			exclusive = true
			writers++
		default:
			writers++
		}
	}
	if writers > 1 || (writers == 1 && readers > 0) {
		class := check.RWExclusion
		if exclusive {
			class = check.MutualExclusion
		}
		v := &check.Violation{Class: class, Detail: fmt.Sprintf("clients %v hold %s at once at step %d", who, run.w.Dir, s.Step()),
			Steps: checkers.Blame(s.Step())}
		run.explainOpen(v)
		return v
	}
	return nil
}

func (r *Report) check(run *lockRun) {
	h, res, w := r.history, r.Result, run.w
	// A hold ends when its session lost the lock, if that came first.
	for i := range h.Holds {
		if e, ok := run.expired[h.sessions[i]]; ok && (h.Holds[i].End < 0 || e.step < h.Holds[i].End) && e.step >= h.Holds[i].Start {
			h.Holds[i].End = e.step
		}
	}
	r.Violations = append(r.Violations, checkers.Exclusion(h.Holds, w.Recipe.MaxHolders())...)

	r.Violations = append(r.Violations, run.fencing()...)
	if w.Recipe.Terms {
		r.Violations = append(r.Violations, checkers.Terms(h.Holds, h.Accepted)...)
	}

	// Each lock is judged on its own: one change (a session's expiry)
	// may delete nodes in several and wake a waiter in each.
	limit := w.herdLimit(run)
	dirs := w.dirs()
	for _, dir := range dirs {
		wakeups := run.wakeups(dir)
		herd, counts := checkers.Wakeups(wakeups, limit)
		if len(dirs) == 1 { // most recipes': the one directory's, not copied
			h.Wakeups, r.Herd = wakeups, counts
		} else {
			h.Wakeups = append(h.Wakeups, wakeups...)
			r.Herd = addCounts(r.Herd, counts)
		}
		for _, v := range herd {
			if len(dirs) > 1 {
				v.Detail += " in " + dir
			}
			if checkers.Note(v.Class) {
				r.Notes = append(r.Notes, v)
			} else {
				r.Violations = append(r.Violations, v)
			}
		}
	}

	if !res.Deadlock && !res.Bounded {
		r.Violations = append(r.Violations, run.orphans(res)...)
	}
	r.Violations = append(r.Violations, res.Verdicts()...)
}

// addCounts adds the counts of more to sum's (made if nil) and returns sum.
func addCounts(sum, more map[int64]int) map[int64]int {
	if sum == nil {
		sum = make(map[int64]int, len(more))
	}
	for k, n := range more {
		sum[k] += n
	}
	return sum
}

// dirs lists the lock directories the recipe uses (Recipe.Dirs).
func (w lockWorkload) dirs() []string {
	if w.Recipe.Dirs == nil {
		return []string{w.Dir}
	}
	return w.Recipe.Dirs(w.Dir)
}

// Marks the workload adds to the herd checker's timeline (lockRun.received)
// beside wakeups (heldNone) and holds (a Mode).
const (
	// waitsAgain: a client called Wait on a watch that had not fired: it
	// went back to waiting, so a wakeup it had since its last wait did not
	// let it proceed.
	waitsAgain linearize.Mode = 254 - iota
	// gaveUp: a client's acquisition ended without the lock.
	gaveUp
)

// herdLimit: an exclusive lock, and a semaphore, may wake one client per
// change (a semaphore's release frees one lease, which one waiter takes). A
// read/write lock may wake at most one writer, plus, when a holder
// released, the readers it woke that did not have to wait again: those
// that went on to hold, and those that gave up (deadline, session lost) or
// stopped (crash) before waiting again, as a reader woken when it could
// proceed may; and when a waiter gave up, the readers that waited on it
// and must now wait on the writer ahead of it.
func (w lockWorkload) herdLimit(run *lockRun) func(int64) int {
	if w.Recipe.AcquireRead == nil {
		return func(int64) int { return 1 }
	}
	proceeded := map[int64]int{} // cause -> woken readers that did not wait again
	readers := map[int64]int{}   // cause -> woken readers
	last := map[int]int64{}      // client -> cause of its wakeup as a reader since it last waited
	for _, r := range run.received {
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
		if run.giveUps[cause] {
			return 1 + readers[cause]
		}
		return 1 + proceeded[cause]
	}
}

// orphans are the nodes the clients created that nobody will remove
// (checkers.Leftovers), but for those the recipe keeps: its directories
// and their ancestors, and what its Keeps says.
func (run *lockRun) orphans(res *sim.Result) []check.Violation {
	kept := keeper(run.w.dirs(), run.w.Dir, run.w.Recipe.Keeps)
	return checkers.Leftovers(run.made.leftovers(run.s, res, kept, func(session int64) (int, bool) {
		e, ok := run.expired[session]
		return int(e.step), ok
	}))
}

// wakeups lists the watch notifications clients received about dir and
// its children.
func (run *lockRun) wakeups(dir string) []checkers.Wakeup {
	children := dir + "/"
	about := func(n received) bool {
		return n.held == heldNone && (n.path == dir || strings.HasPrefix(n.path, children))
	}
	count := 0 // counted first, for one allocation of the right size
	for _, n := range run.received {
		if about(n) {
			count++
		}
	}
	out := make([]checkers.Wakeup, 0, count)
	for _, n := range run.received {
		if about(n) {
			out = append(out, checkers.Wakeup{Client: n.client, Cause: n.zxid, Path: n.path, Step: n.step, Stale: n.stale})
		}
	}
	return out
}
