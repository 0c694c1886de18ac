package harness

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/internal/simhook"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/report"
	"github.com/zksim/zksim/sim"
)

// Barrier is the barrier workload of r with the settings w, a Subject:
// its trace files' recipe line is r.Name. Its clients form a double barrier of as many members as there are clients, and go
// through Rounds rounds each: enter, work WorkTicks, leave. A client
// whose Enter fails tries again (its session may have ended), up to
// Attempts calls a round, and then drops out.
//
// With Single it drives the recipe's single barrier instead, raised
// before the run: client 1 sets it again (a no-op that must not fail),
// works WorkTicks and removes it; the others wait on it.
//
// The checkers (its Report): entry and exit safety, the single
// barrier's, herd, nodes left behind, and liveness.
//
// What they accept when a member's session ends (it expired: the
// member crashed, was paused or cut off too long; or the client gave it
// up) or a member drops out:
//   - Enter: a member counts as arrived from its Enter call until its
//     node is surely gone: its Leave call, the end of every session its
//     call ran on, or, for an Enter that failed, the failure (or the end
//     of a session it gave up, whose node lingers). A member may pass
//     only after a moment at which all N counted at once. So a round may
//     count a member whose Enter then fails: for the others it arrived
//     and left at once, as for ZooKeeper.
//   - Leave: a member of the round has left once it called Leave, its
//     Enter failed, or the first session its call ran on ended; nobody
//     passes Leave before all the others of its round left.
//   - Liveness: the simulator's deadlock, except what a barrier cannot
//     help: when fewer than N clients are left waiting in Enter (the
//     others crashed, or dropped out), they wait forever; and a single
//     barrier whose controller crashed before removing it is never
//     lowered. Nobody may hang in Leave: a member that crashed or lost
//     its session inside has left. N clients waiting in Enter is a
//     deadlock whatever happened before.
//   - Herd: a session's end may wake every client that watched its
//     nodes; any other change, the clients that go on plus one.
//
// harnesstest.Check draws its checks within w (see there); Run,
// Explore and Replay run it as given.
func Barrier(r recipe.Barrier, w BarrierWorkload) Subject {
	return barrierWorkload{BarrierWorkload: w, Recipe: r}
}

// BarrierWorkload is the settings of the barrier workload (Barrier).
// Zero means the default.
type BarrierWorkload struct {
	Dir       string // the double barrier's directory, or the single barrier's node; default /barriers/b
	Clients   int    // default 3
	Rounds    int    // per client; default 2 (the single barrier has one)
	WorkTicks int    // virtual time inside; default 1
	Attempts  int    // Enter calls a round before a client drops out; default 2
	// LatePercent is the share of Enter calls (and single-barrier waits)
	// made a tick late, so that members arrive apart: a client's yes/no
	// question (sim.Client.Chance), which the systematic search explores
	// both ways. Default 50; -1: none, all arrive at once.
	LatePercent int
	Single      bool
}

// barrierWorkload is the Subject Barrier makes.
type barrierWorkload struct {
	BarrierWorkload
	Recipe recipe.Barrier
}

// BarrierSettings is what Barrier was given: harnesstest draws its
// checks within them.
func (w barrierWorkload) BarrierSettings() (recipe.Barrier, BarrierWorkload) {
	return w.Recipe, w.BarrierWorkload
}

func (w barrierWorkload) withDefaults() barrierWorkload {
	w.Dir = cmp.Or(w.Dir, "/barriers/b")
	w.Clients = cmp.Or(w.Clients, 3)
	w.Rounds = cmp.Or(w.Rounds, 2)
	w.WorkTicks = cmp.Or(w.WorkTicks, 1)
	w.Attempts = cmp.Or(w.Attempts, 2)
	w.LatePercent = cmp.Or(w.LatePercent, 50)
	return w
}

// Name implements Subject: the recipe's.
func (w barrierWorkload) Name() string { return w.Recipe.Name }

// barrierKind opens the workload line of a barrier recipe's run.
const barrierKind = "barrier"

// Spec implements Subject, defaults applied; a late share of none (-1)
// is written 0.
func (w barrierWorkload) Spec() string {
	w = w.withDefaults()
	return fmt.Sprintf("%s clients=%d rounds=%d work=%d attempts=%d late=%d single=%t dir=%s",
		barrierKind, w.Clients, w.Rounds, w.WorkTicks, w.Attempts, max(0, w.LatePercent), w.Single, w.Dir)
}

// Parse implements Subject: the workload of w's recipe that spec says.
func (w barrierWorkload) Parse(spec string) (Subject, error) {
	p := barrierWorkload{Recipe: w.Recipe}
	v := splitSpec(spec)
	if len(v) == 0 || v[0] != barrierKind {
		return nil, errors.New("not a barrier workload")
	}
	if err := keyvals(v[1:], map[string]any{"clients": &p.Clients, "rounds": &p.Rounds, "work": &p.WorkTicks,
		"attempts": &p.Attempts, "late": &p.LatePercent, "single": &p.Single, "dir": &p.Dir}); err != nil {
		return nil, err
	}
	if p.LatePercent == 0 {
		p.LatePercent = -1
	}
	return p, nil
}

// Shape implements Subject: the single barrier has one round.
func (w barrierWorkload) Shape() Shape {
	w = w.withDefaults()
	if w.Single {
		return Shape{Clients: w.Clients, Each: 1}
	}
	return Shape{Clients: w.Clients, Each: w.Rounds, Unit: "rounds"}
}

// Resize implements Subject.
func (w barrierWorkload) Resize(s Shape) Subject {
	w.Clients = s.Clients
	if !w.Single {
		w.Rounds = s.Each
	}
	return w
}

// Checks names the checks of a run (everyStep: of a systematic search,
// whose invariant is checked after every step), for a command's header.
func (w barrierWorkload) Checks(everyStep bool) string {
	when := ""
	if everyStep {
		when = " after every step"
	}
	if w.Single {
		return fmt.Sprintf("single-barrier waits%s, herd, orphans, deadlock, progress", when)
	}
	return fmt.Sprintf("barrier entry and exit%s, herd, orphans, deadlock, progress", when)
}

// Start implements Subject.
func (w barrierWorkload) Start(s *sim.Sim) ([]sim.Program, Judge) {
	programs, run := w.start(s)
	return programs, run
}

func (w barrierWorkload) start(s *sim.Sim) ([]sim.Program, *barrierRun) {
	w = w.withDefaults()
	run := &barrierRun{s: s, w: w, phase: make([]phase, w.Clients), made: newCreations(w.Clients, 0, nil),
		expired: map[int64]int64{}, expiries: map[int64]bool{}, removed: -1, judged: -1}
	simhook.AddObserver(s, simhook.Observer[*sim.Client](run))
	programs := make([]sim.Program, w.Clients)
	if w.Single {
		raise(s.State().(*machine.Machine), w.Dir)
		programs[0] = run.controller
		for i := 1; i < w.Clients; i++ {
			programs[i] = run.waiter
		}
		return programs, run
	}
	for i := range programs {
		programs[i] = run.member
	}
	return programs, run
}

// raise creates the single barrier's node and its ancestors before the
// run, so that no Wait may pass before the controller's Remove.
func raise(m *machine.Machine, path string) {
	info, _ := m.CreateSession(0, 10000)
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for i := range segs {
		m.Do(info.ID, proto.Create{Path: "/" + strings.Join(segs[:i+1], "/")})
	}
	m.CloseSession(info.ID)
}

// phase is what a client of the barrier workload is doing.
type phase uint8

const (
	idle phase = iota
	entering
	inside
	leaving
	waiting // on the single barrier
)

// barrierRun is one run of the barrier workload as its checkers see it.
type barrierRun struct {
	s        *sim.Sim
	w        barrierWorkload
	visits   []visit
	waits    []checkers.SingleWait
	removed  int64 // step of the first Remove call; -1: none
	lowered  bool  // a Remove returned
	phase    []phase
	made     *creations      // the nodes the clients created, for the orphan checker
	expired  map[int64]int64 // session -> step it expired
	expiries map[int64]bool  // zxids of the expiries
	ended    []report.Expiry // the clients' sessions that expired, in order
	timeline []barrierMark
	visible  int
	judged   int // visible when the invariant last ran
}

// visit is one Enter call as the run records it; Visit is what the
// checkers see, once the sessions' ends are known.
type visit struct {
	checkers.Visit
	failed    int64 // Enter returned an error; -1: it did not
	leaveCall int64
	after     int64 // the client's session at the return
	// sessions are those the client's requests ran on during the Enter
	// call, in order: its node is on one of them.
	sessions []int64
	open     bool // Enter has not returned
}

// barrierMark is a wakeup or a call's return, in step order, for the herd
// checker: woken (cause >= 0), waits again, or returned.
type barrierMark struct {
	client int
	cause  int64
	path   string
	kind   markKind
	step   int
}

type markKind uint8

const (
	markWoken markKind = iota
	markBlocks
	markReturned // an Enter, Leave or Wait returned, or the client stopped
)

// Applied implements simhook.Observer: it notes the sessions a pending Enter
// call's requests ran on, and the nodes created for the orphan checker.
func (run *barrierRun) Applied(c *sim.Client, req proto.Request, rep *proto.Reply) {
	run.made.applied(c, req, rep)
	for i := len(run.visits) - 1; i >= 0; i-- {
		v := &run.visits[i]
		if v.Client != c.Index() {
			continue
		}
		if v.open && v.sessions[len(v.sessions)-1] != c.Session() {
			v.sessions = append(v.sessions, c.Session())
		}
		return
	}
}

// Expired implements simhook.Observer.
func (run *barrierRun) Expired(session, zxid int64) {
	run.expired[session] = int64(run.s.Step())
	run.expiries[zxid] = true
	run.ended = append(run.ended, expiriesOf(run.s, session)...)
	run.visible++
}

// Woken implements simhook.Observer.
func (run *barrierRun) Woken(c *sim.Client, path string, zxid int64) {
	run.timeline = append(run.timeline, barrierMark{client: c.Index(), cause: zxid, path: path, kind: markWoken, step: run.s.Step()})
}

// Blocks implements simhook.Observer.
func (run *barrierRun) Blocks(c *sim.Client) {
	run.timeline = append(run.timeline, barrierMark{client: c.Index(), kind: markBlocks})
}

func (run *barrierRun) returned(c *sim.Client) {
	run.timeline = append(run.timeline, barrierMark{client: c.Index(), kind: markReturned})
	run.phase[c.Index()] = idle
	run.visible++
}

// member is a double barrier member's program.
func (run *barrierRun) member(ctx context.Context, c *sim.Client) error {
	w := run.w
	for r := range w.Rounds {
		var m recipe.Leaver
		for a := 0; a < w.Attempts && m == nil; a++ {
			m = run.enter(ctx, c, fmt.Sprintf("%s_%d", c.Name(), r*w.Attempts+a+1))
		}
		if m == nil {
			break // dropped out
		}
		c.Sleep(ctx, w.WorkTicks)
		run.leave(ctx, c, m)
	}
	run.made.finish(c)
	return nil
}

// arrive makes a client late, by LatePercent's chance.
func (run *barrierRun) arrive(ctx context.Context, c *sim.Client) {
	if run.w.LatePercent > 0 && c.Chance(run.w.LatePercent, "late?") {
		c.Sleep(ctx, 1)
	}
}

// enter is one Enter call, recorded.
func (run *barrierRun) enter(ctx context.Context, c *sim.Client, id string) recipe.Leaver {
	run.arrive(ctx, c)
	i := len(run.visits)
	step := int64(c.Sim().Step())
	run.visits = append(run.visits, visit{Visit: checkers.Visit{Client: c.Index(), Arrive: step, Entered: -1, Left: -1, Gone: -1, Passed: -1},
		failed: -1, leaveCall: -1, sessions: []int64{c.Session()}, open: true})
	run.phase[c.Index()], run.visible = entering, run.visible+1
	m, err := run.w.Recipe.Enter(ctx, c.Conn(), run.w.Dir, id, run.w.Clients)
	v := &run.visits[i]
	v.after, v.open = c.Session(), false
	run.returned(c)
	if err != nil {
		v.failed = int64(c.Sim().Step())
		c.Logf("enter failed: %v", err)
		return nil
	}
	v.Entered = int64(c.Sim().Step())
	run.phase[c.Index()] = inside
	if c.Sim().Tracing() {
		c.Logf("inside %s", run.w.Dir)
	}
	return m
}

// leave is one Leave call, recorded.
func (run *barrierRun) leave(ctx context.Context, c *sim.Client, m recipe.Leaver) {
	i := slices.IndexFunc(run.visits, func(v visit) bool { return v.Client == c.Index() && v.Entered >= 0 && v.leaveCall < 0 })
	v := &run.visits[i]
	v.leaveCall = int64(c.Sim().Step())
	run.phase[c.Index()], run.visible = leaving, run.visible+1
	err := m.Leave(ctx)
	v = &run.visits[i]
	run.returned(c)
	if err != nil {
		c.Logf("leave: %v", err)
		return
	}
	v.Passed = int64(c.Sim().Step())
	if c.Sim().Tracing() {
		c.Logf("left %s", run.w.Dir)
	}
}

// controller raises the single barrier again, works and removes it.
func (run *barrierRun) controller(ctx context.Context, c *sim.Client) error {
	s := run.w.Recipe.Single
	if err := s.Set(ctx, c.Conn(), run.w.Dir); err != nil {
		c.Logf("set: %v", err)
	}
	c.Sleep(ctx, run.w.WorkTicks)
	if run.removed < 0 {
		run.removed = int64(c.Sim().Step())
	}
	run.visible++
	if err := s.Remove(ctx, c.Conn(), run.w.Dir); err != nil {
		c.Logf("remove: %v", err)
	} else {
		run.lowered = true
	}
	run.made.finish(c)
	return nil
}

// waiter waits on the single barrier.
func (run *barrierRun) waiter(ctx context.Context, c *sim.Client) error {
	run.arrive(ctx, c)
	i := len(run.waits)
	run.waits = append(run.waits, checkers.SingleWait{Client: c.Index(), Call: int64(c.Sim().Step()), Return: -1})
	run.phase[c.Index()], run.visible = waiting, run.visible+1
	err := run.w.Recipe.Single.Wait(ctx, c.Conn(), run.w.Dir)
	run.returned(c)
	if err != nil {
		c.Logf("wait: %v", err)
	} else {
		run.waits[i].Return = int64(c.Sim().Step())
	}
	run.made.finish(c)
	return nil
}
