package sim

import (
	"cmp"
	"context"
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/checkers"
	"github.com/zksim/zksim/internal/fakeconfig"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/zkclient"
)

// Faults bounds the faults a run may inject: how many of each kind at most,
// and the percentage of steps that inject one when any is possible.
type Faults struct {
	Percent     int // 0..100: chance that a step injects an enabled fault
	LoseRequest int
	LoseReply   int
	Disconnect  int
	Crash       int
	Pause       int
	PauseTicks  int // how long a pause lasts; default 2x the session timeout
	Reap        int
	Reorder     int // illegal: a reply overtakes earlier notifications
	// Abandon: a client gives up its session on its own (a client-side
	// session timeout, or a handle closed without closeSession and
	// reopened) and continues on a new one, while the server keeps the
	// old session and its ephemerals until it expires (CURATOR-498).
	Abandon int
	// None asks for no faults by name, whatever the budgets say. A run
	// injects only what the budgets allow, so to Run a zero Faults is no
	// faults too; but the go test entry points (package harnesstest) read
	// a zero Faults as "not narrowed" and explore with DefaultFaults
	// (OneOfEach when exhaustive). None, and only None, turns that off.
	None bool
}

// Config configures a run.
type Config struct {
	// Server configures the simulated ensemble (seed, followers, overflow).
	Server fakezk.Config
	// SessionTimeoutMs asked by every client; default 4 ticks.
	SessionTimeoutMs int64
	Faults           Faults
	// TickPercent is the chance that a step advances time when other
	// events are possible; default 5.
	TickPercent int
	// MaxSteps bounds the run; default 20000.
	MaxSteps int
	// DeadlockTicks: a run in which only time can advance for this many
	// ticks while a client is unfinished has deadlocked; default 40.
	DeadlockTicks int
	// PCT switches from a uniform random walk to PCT (probabilistic
	// concurrency testing): clients get random priorities, the highest
	// runs, and at PCTDepth-1 random steps within PCTHorizon the running
	// client drops to the lowest priority. Finds bugs of depth d with
	// probability at least 1/(n * k^(d-1)).
	PCT        bool
	PCTDepth   int // default 3
	PCTHorizon int // default 400 steps
	// Flat makes every step one choice among all the enabled events,
	// faults and (within TickBudget) a tick included, instead of the
	// weighted coin flips of a random walk, and asks the workload's yes/no
	// questions as two-way choices. It is the form the systematic strategy
	// (Explore) enumerates; a run in it is judged deadlocked as soon as
	// only time could advance and time would change nothing.
	Flat bool
	// TickBudget bounds, in Flat mode, the early ticks: ticks taken while
	// some other event was enabled (and something was due, see due); time
	// passes freely when nothing else can happen. 0: none (time never
	// passes while a client is between two requests, unless it spins);
	// negative: no bound (each still costs a deviation in a search).
	TickBudget int
	// SpinRequests is, in Flat mode, how many requests a client may make
	// without waiting (Watch.Wait, WaitSession, a persistent watch's Next,
	// Client.Sleep) before time passes with its requests: from the next
	// one on, the default schedule runs the other clients' events, then
	// a tick if something is due, before each of its requests (sending
	// it sooner costs a deviation), so that a client that retries without
	// blocking neither starves the others nor keeps time frozen, and
	// deadlines, session expiries and pauses end as they would in real
	// time. Default 16; -1: never.
	SpinRequests int
	// NoTrace skips writing the trace, for fast exploration; a failing
	// schedule can be run again with tracing, deterministically.
	NoTrace bool
	// Setup runs before each run's clients start: programs that share
	// state (a map of who leads, a counter) reset it here, since a
	// search or a shrinker runs them many times.
	Setup func()
	// Observe runs after every step (for checking an invariant).
	Observe func(s *Sim, step int, ev Event) error
}

// WithDefaults returns c with every setting left at 0 at its default.
func (c Config) WithDefaults() Config {
	c.Server.TickMillis = cmp.Or(c.Server.TickMillis, 1000)
	c.SessionTimeoutMs = cmp.Or(c.SessionTimeoutMs, 4*c.Server.TickMillis)
	c.TickPercent = cmp.Or(c.TickPercent, 5)
	c.MaxSteps = cmp.Or(c.MaxSteps, 20000)
	c.DeadlockTicks = cmp.Or(c.DeadlockTicks, 40)
	c.PCTDepth = cmp.Or(c.PCTDepth, 3)
	c.PCTHorizon = cmp.Or(c.PCTHorizon, 400)
	c.SpinRequests = cmp.Or(c.SpinRequests, 16)
	c.Faults.PauseTicks = cmp.Or(c.Faults.PauseTicks, int(2*c.SessionTimeoutMs/c.Server.TickMillis))
	if c.Faults.None { // no budget survives it, in a run as at an entry point
		c.Faults = Faults{None: true, PauseTicks: c.Faults.PauseTicks}
	}
	return c
}

type timer struct {
	at     int64
	client int
	ctx    context.Context
	cancel context.CancelFunc
}

// Sim is one run: the ensemble, the clients, virtual time and the trace.
type Sim struct {
	cfg        Config
	m          *machine.Machine
	clients    []*Client
	chooser    Chooser
	stopping   bool
	now        int64
	timers     []timer
	epoch      int // incremented whenever a virtual timer fires
	used       [numKinds]int
	budget     [numKinds]int // each fault kind's budget (Config.Faults), by kind
	faultsLeft int           // the budgets of every fault kind (faultKinds) not used yet
	trace      []string
	step       int
	quiet      int // consecutive ticks with nothing else enabled
	obs        []observer
	normal     []Event // reused by pick
	faulty     []Event
	evs        []clientEvents                 // by client: the events each was last found to have (refresh)
	dirty      []int                          // the clients whose entries in evs are stale, once each
	live       int                            // clients neither done nor crashed, as of the last refresh
	nNormal    int                            // the clients' normal events, as of the last refresh
	budgetSet  faultSet                       // the client faults whose budgets are not used up (budgeted)
	prio       []int                          // PCT: client priorities, higher runs first
	changes    []int                          // PCT: the change points still ahead, in order
	opts       []Event                        // Flat: the options of the current step
	spun       []Event                        // Flat: spare for the normal events reordered (yieldSpinners)
	ticks      int                            // Flat: ticks taken while other events were enabled
	after      func(ev Event) bool            // Explore: after every step; false ends the run
	pickHook   func(opts []Event) (int, bool) // Explore: picks every Flat step; false ends the run
	cut        bool                           // Explore: a hook ended the run
	hashing    bool                           // Explore: clients keep their histories' hashes
	sym        *symmetry                      // Explore with symmetry: the clients' renamings
	closes     int                            // conn.Close calls that reached the server
	collected  uint64                         // the server's Posted count at the last collect
	wrap       func(run func())               // simhook.Bubble: runs the run (a synctest bubble)
	onTick     []func()                       // simhook.OnTick: after every tick of virtual time
	cov        Coverage                       // what the run exercised (coverage.go)
}

// Result is the outcome of a run.
type Result struct {
	Trace    []string
	Steps    int
	Deadlock bool           // only time could advance while a client was unfinished
	Bounded  bool           // MaxSteps reached
	Errors   []error        // per client: what its program returned
	Faults   map[string]int // injected, by fault name (as in traces and -faults)
	Err      error          // Observe's verdict, if it stopped the run
	Waiting  []string       // clients unfinished when the run ended
	// Waits say, per client in Waiting, what it waited on (traced runs
	// only): the node and its owner, for the deadlock verdict.
	Waits []Wait
	// Coverage is what the run exercised (see Coverage).
	Coverage Coverage
}

// Verdicts words what a run itself shows, whatever it ran: a deadlock, no
// progress within the step bound, the programs' errors and Observe's
// verdict. harnesstest.Check fails on them; the lock workload adds them to its
// checkers'.
func (res *Result) Verdicts() []check.Violation {
	var vs []check.Violation
	if res.Deadlock {
		vs = append(vs, res.deadlock())
	}
	if res.Bounded {
		vs = append(vs, check.Violation{Class: check.NoProgress,
			Detail: fmt.Sprintf("unfinished after %d steps: %s", res.Steps, strings.Join(res.Waiting, ", "))})
	}
	for i, err := range res.Errors {
		if err != nil {
			vs = append(vs, check.Violation{Class: check.ClientError, Detail: fmt.Sprintf("c%d: %v", i+1, err)})
		}
	}
	if res.Err != nil {
		vs = append(vs, check.Violation{Class: check.Invariant, Detail: res.Err.Error(), Steps: checkers.Blame(res.Steps)})
	}
	return vs
}

// State is the simulated ensemble's state, for Observe and a judge to
// read: its nodes and live sessions. Within the module, its dynamic
// value is the run's whole Machine (package internal/machine): harness
// and the sim tests set the ensemble up through it, by a type assertion,
// in a Scenario's Start, the one way in that sim keeps from its users,
// whose programs set a run up with requests.
func (s *Sim) State() fakezk.State { return s.m }

// Tracing reports whether the run keeps a trace (Config.NoTrace unset):
// a program can skip building lines nobody reads.
func (s *Sim) Tracing() bool { return !s.cfg.NoTrace }

// Step is the number of the step being run, from 1 (0 before the first).
func (s *Sim) Step() int { return s.step }

// Clients returns the clients.
func (s *Sim) Clients() []*Client { return s.clients }

// Run runs programs, one client each, choosing every step with ch.
func Run(cfg Config, ch Chooser, programs ...Program) (*Result, error) {
	if err := validatePrograms(programs); err != nil {
		return nil, err
	}
	s, err := newSim(cfg, ch)
	if err != nil {
		return nil, err
	}
	return s.run(programs), nil
}

// newSim makes the ensemble, set up, and a run with no clients yet.
func newSim(cfg Config, ch Chooser) (*Sim, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	m, err := machine.NewMachine(fakeconfig.Machine(cfg.Server))
	if err != nil {
		return nil, err
	}
	if cfg.Setup != nil {
		cfg.Setup()
	}
	s := &Sim{cfg: cfg, m: m, chooser: ch}
	for _, k := range faultKinds {
		s.budget[k.kind] = *k.budget(&s.cfg.Faults)
		s.faultsLeft += s.budget[k.kind]
	}
	s.budgetSet = s.budgeted()
	return s, nil
}

// run starts one client per program and steps until they all finish or
// the run ends otherwise.
func (s *Sim) run(programs []Program) *Result {
	if s.wrap == nil {
		return s.runClients(programs)
	}
	var res *Result
	s.wrap(func() { res = s.runClients(programs) })
	if res == nil {
		panic("sim: invariant: a run's wrapper did not run it")
	}
	return res
}

// runClients is run, inside its wrapper if it has one.
func (s *Sim) runClients(programs []Program) *Result {
	s.startClients(programs)
	defer s.stop()
	if s.cfg.PCT {
		s.initPCT()
	}
	for _, c := range s.clients {
		c.run()
	}
	res := &Result{Faults: map[string]int{}}
	s.loop(res)
	res.Trace, res.Steps = s.trace, s.step
	for _, c := range s.clients {
		if c.state != stDone && c.state != stCrashed {
			res.Waiting = append(res.Waiting, c.name)
			if !s.cfg.NoTrace {
				res.Waits = append(res.Waits, s.waitOf(c))
			}
		}
	}
	res.Errors = make([]error, 0, len(s.clients))
	for _, c := range s.clients {
		res.Errors = append(res.Errors, c.err)
	}
	for k, n := range s.used {
		if n > 0 {
			res.Faults[evKind(k).String()] = n
		}
	}
	res.Coverage = s.coverage()
	return res
}

func (s *Sim) startClients(programs []Program) {
	ctx := context.Background()
	// Sized once: a step lists at most 4 events a client (and a catch-up a
	// follower) and 7 faults a client (and the reaper).
	s.clients = make([]*Client, 0, len(programs))
	s.normal = make([]Event, 0, 4*len(programs)+s.cfg.Server.Followers)
	s.faulty = make([]Event, 0, 7*len(programs)+1)
	s.evs = make([]clientEvents, len(programs))
	s.dirty = make([]int, 0, len(programs))
	s.touchAll()
	// The clients and the first arrays of their inboxes are made at once:
	// a run is short, and its allocations count.
	clients := make([]Client, len(programs))
	inboxes := make([]message, inboxRoom*len(programs))
	for i, p := range programs {
		c := &clients[i]
		*c = Client{sim: s, idx: i, name: clientName(i), prog: p}
		c.inbox = inboxes[i*inboxRoom : i*inboxRoom : (i+1)*inboxRoom]
		c.conn.c = c
		c.conn.calls = calls{T: &c.conn}
		s.clients = append(s.clients, c)
		c.model = zkclient.NewSession[*watch, *pwatch](s.m.Config(), i%(s.cfg.Server.Followers+1))
		c.openSession()
		c.start(ctx)
	}
}

// inboxRoom is the room a client's inbox starts with: a reply and a
// few notifications.
const inboxRoom = 4

// clientNames are the first clients' names, made once.
var clientNames = func() (names [16]string) {
	for i := range names {
		names[i] = "c" + strconv.Itoa(i+1)
	}
	return names
}()

// clientName is the name of client i in traces: c1, c2, ...
func clientName(i int) string {
	if i < len(clientNames) {
		return clientNames[i]
	}
	return "c" + strconv.Itoa(i+1)
}

// loop picks and applies events until the clients finish, the step bound
// or a deadlock is reached, or Observe objects.
func (s *Sim) loop(res *Result) {
	cfg := &s.cfg
	for s.step = 1; ; s.step++ {
		if s.allFinished() {
			return
		}
		if s.step > cfg.MaxSteps {
			res.Bounded = true
			return
		}
		ev, ok := s.pick()
		if !ok {
			res.Deadlock = !s.cut
			return
		}
		s.apply(ev)
		if s.after != nil && !s.after(ev) {
			s.cut = true
			return
		}
		if cfg.Observe != nil {
			if err := cfg.Observe(s, s.step, ev); err != nil {
				res.Err = err
				return
			}
		}
		if s.quiet > cfg.DeadlockTicks {
			res.Deadlock = true
			return
		}
	}
}

func (s *Sim) allFinished() bool {
	s.refresh()
	return s.live == 0
}

// stop ends every client goroutine still parked.
func (s *Sim) stop() {
	s.stopping = true
	for _, t := range s.timers {
		t.cancel()
	}
	for _, c := range s.clients {
		c.stop()
	}
}

func (s *Sim) note(line string) {
	if !s.cfg.NoTrace {
		s.trace = append(s.trace, fmt.Sprintf("%5d t%-3d %s", s.step, s.now, line))
	}
}

// noteEvent traces a bare event.
func (s *Sim) noteEvent(ev Event) {
	if !s.cfg.NoTrace {
		s.note(ev.String())
	}
}

// notef formats a trace line only when the trace is kept.
func (s *Sim) notef(format string, args ...any) {
	if !s.cfg.NoTrace {
		s.note(fmt.Sprintf(format, args...))
	}
}

// enabled lists the possible events in a fixed order (client events by
// client, then global ones) into s.normal and s.faulty; a tick is always
// possible besides.
func (s *Sim) enabled() {
	s.listNormal()
	s.faulty = s.addFaults(s.faulty[:0])
}

// listNormal lists the possible events but faults into s.normal.
func (s *Sim) listNormal() {
	s.refresh()
	normal := s.normal[:0]
	for i, e := range s.evs {
		for set := e.normal; set != 0; set &= set - 1 {
			normal = append(normal, Event{kind: normalOrder[bits.TrailingZeros8(set)], client: i})
		}
	}
	for i := 1; i <= s.cfg.Server.Followers; i++ {
		if s.m.ReplicaZxid(i) < s.m.Zxid() {
			normal = append(normal, Event{kind: evCatchUp, client: i})
		}
	}
	s.normal = normal
}

// addFaults appends the possible faults to dst, in a fixed order (by
// client, each in clientFaultOrder, then the reaper's).
func (s *Sim) addFaults(dst []Event) []Event {
	if s.faultsSpent() {
		return dst // the common case late in a run
	}
	s.refresh()
	for i, e := range s.evs {
		for set := e.faults & s.budgetSet; set != 0; set &= set - 1 {
			dst = append(dst, Event{kind: clientFaultOrder[bits.TrailingZeros8(uint8(set))], client: i})
		}
	}
	if s.used[evReap] < s.budget[evReap] {
		dst = append(dst, Event{kind: evReap})
	}
	return dst
}

// anyFault reports whether a fault is possible (addFaults would list
// one), which is all a random walk needs to know before it decides to
// inject one.
func (s *Sim) anyFault() bool {
	if s.faultsSpent() {
		return false
	}
	s.refresh()
	var union faultSet
	for _, e := range s.evs {
		union |= e.faults
	}
	return union&s.budgetSet != 0 || s.used[evReap] < s.budget[evReap]
}

// A faultSet is a set of the faults that act on one client, a bit each
// by its place in clientFaultOrder.
type faultSet uint8

// clientFaultOrder is the order in which addFaults lists one client's
// faults: a seed's choices, and so its schedules, depend on it. When
// each can happen: Client.events.
var clientFaultOrder = [...]evKind{evLoseRequest, evLoseReply, evReorder, evDisconnect, evCrash, evPause, evAbandon}

const (
	fLoseRequest faultSet = 1 << iota
	fLoseReply
	fReorder
	fDisconnect
	fCrash
	fPause
	fAbandon
)

// budgeted is the set of client faults whose budgets are not used up.
func (s *Sim) budgeted() faultSet {
	var set faultSet
	for i, k := range clientFaultOrder {
		if s.used[k] < s.budget[k] {
			set |= 1 << i
		}
	}
	return set
}

// faultsSpent reports whether every fault kind's budget is used up:
// counted down from the table of kinds, so that a kind added there is
// never skipped here.
func (s *Sim) faultsSpent() bool { return s.faultsLeft <= 0 }

// pick chooses the next event: maybe a fault, maybe a tick, else one of
// the other events. A choice of 0 is always the least eventful, so that
// shrinking towards 0 removes faults and ticks.
func (s *Sim) pick() (Event, bool) {
	if s.cfg.Flat {
		s.enabled()
		return s.pickFlat()
	}
	// The events are counted, and listed only for PCT; the faults are
	// listed only once one is to be injected: most steps need only know
	// that there is one.
	n := s.countNormal()
	if s.cfg.Faults.Percent > 0 && s.anyFault() &&
		s.chooser.Choose(100, "fault?") >= 100-s.cfg.Faults.Percent {
		s.faulty = s.addFaults(s.faulty[:0])
		return s.faulty[s.chooser.Choose(len(s.faulty), "fault")], true
	}
	if n == 0 {
		s.quiet++
		return Event{kind: evTick}, true
	}
	s.quiet = 0
	if s.chooser.Choose(100, "tick?") >= 100-s.cfg.TickPercent {
		return Event{kind: evTick}, true
	}
	if s.prio != nil {
		return s.pickPCT(), true
	}
	return s.nthNormal(s.chooser.Choose(n, "event")), true
}

// countNormal is the number of events listNormal would list. With
// followers it lists them (their catch-ups are not cached), for nthNormal.
func (s *Sim) countNormal() int {
	s.refresh()
	if s.cfg.Server.Followers == 0 {
		return s.nNormal
	}
	s.listNormal()
	return len(s.normal)
}

// nthNormal is the event listNormal would list k-th, from 0, of the
// countNormal just counted.
func (s *Sim) nthNormal(k int) Event {
	if k >= s.nNormal { // a catch-up: countNormal listed them
		return s.normal[k]
	}
	for i, e := range s.evs {
		set := e.normal
		if c := bits.OnesCount8(set); k >= c {
			k -= c
			continue
		}
		return Event{kind: nthKind(set, k), client: i}
	}
	panic("sim: invariant: an event past the last is picked")
}

// pickFlat makes one choice among every enabled event: the normal ones,
// then the faults, then an early tick if the tick budget allows one and
// something is due; when only time can advance, the tick comes first,
// then the faults, and when a client spins (see Config.SpinRequests) the
// others' events come first, then the tick if something is due, then the
// spinners' sends and the faults. A tick in
// Flat mode advances time to the moment something is next due (see due).
// Option 0 is the default schedule's (the first client's event, time
// owed to spinning clients, or time passing), so that a systematic search can
// count the choices that deviate from it. A single option is taken
// without a choice; if time would change nothing and nothing else can
// happen, the run has deadlocked.
func (s *Sim) pickFlat() (Event, bool) {
	tick := Event{kind: evTick}
	quiet := len(s.normal) == 0
	opts := s.opts[:0]
	spin := false
	if quiet {
		if s.due() == 0 {
			return Event{}, false
		}
		opts = append(append(opts, tick), s.faulty...)
	} else {
		early := s.cfg.TickBudget < 0 || s.ticks < s.cfg.TickBudget
		spin = s.spinning()
		if (early || spin) && s.due() == 0 {
			early = false // time would change nothing
		}
		if spin {
			// Fair to the others and to time: the clients that do not
			// spin move first, then time passes, then the spinners send.
			n := s.yieldSpinners()
			opts = append(opts, s.normal[:n]...)
			if early {
				opts = append(opts, tick)
			}
			opts = append(append(opts, s.normal[n:]...), s.faulty...)
		} else {
			opts = append(append(opts, s.normal...), s.faulty...)
			if early {
				opts = append(opts, tick)
			}
		}
	}
	s.opts = opts
	ev := opts[0]
	if s.pickHook != nil {
		i, ok := s.pickHook(opts)
		if !ok {
			s.cut = true
			return Event{}, false
		}
		ev = opts[i]
	} else if len(opts) > 1 {
		ev = opts[s.chooser.Choose(len(opts), "event")]
	}
	switch {
	case quiet && ev.kind == evTick:
		s.quiet++
	case ev.kind == evTick && !spin && s.cfg.TickBudget > 0: // time owed is not early
		s.ticks++
	case !quiet && ev.kind != evTick:
		s.quiet = 0
	}
	return ev, true
}

// yieldSpinners moves the sends of the clients time is owed to (see
// spinning) after the other normal events, in place, and returns the
// number of the others, so that the default schedule is fair: a client
// that spins lets the others move and time pass before its next request,
// as a real network and scheduler would.
func (s *Sim) yieldSpinners() int {
	out := s.spun[:0]
	for _, ev := range s.normal {
		if !s.owes(ev) {
			out = append(out, ev)
		}
	}
	n := len(out)
	for _, ev := range s.normal {
		if s.owes(ev) {
			out = append(out, ev)
		}
	}
	s.spun, s.normal = s.normal, out
	return n
}

// owes reports whether ev is the send of a client time is owed to.
func (s *Sim) owes(ev Event) bool {
	if ev.kind != evSend {
		return false
	}
	c := s.clients[ev.client]
	return c.owed && c.state == stCall && !c.paused
}

// spinning reports whether a client's pending request is one past
// Config.SpinRequests made without waiting, with no time passed since
// it was made: time is owed to it.
func (s *Sim) spinning() bool {
	for _, c := range s.clients {
		if c.owed && c.state == stCall && !c.paused {
			return true
		}
	}
	return false
}

// due is the number of ticks until time next changes something: a
// client's sleep or virtual deadline ends, a paused client resumes, or the
// ensemble has a session to expire, a follower to catch up or a container
// to reap; 0 if letting time pass would change nothing.
func (s *Sim) due() int64 {
	due := s.m.Due()
	next := func(at int64) {
		if d := max(1, at-s.now); due == 0 || d < due {
			due = d
		}
	}
	for _, c := range s.clients {
		if c.paused {
			next(c.pauseEnd)
		}
		if c.state == stWait && c.call.kind == callSleep {
			next(c.call.until)
		}
		if c.state == stWait && c.call.kind == callAwait {
			next(s.now + 1) // a wire program's own timers are hidden from the scheduler
		}
	}
	for _, t := range s.timers {
		if t.ctx.Err() == nil {
			next(t.at)
		}
	}
	return due
}

// chance answers a workload's yes/no question that holds percent of the
// time: a draw from 100 in a random walk, a two-way choice in Flat mode
// (no choice at 0 or 100).
func (s *Sim) chance(percent int, what string) bool {
	if !s.cfg.Flat {
		return s.chooser.Choose(100, what) < percent
	}
	if percent <= 0 || percent >= 100 {
		return percent >= 100
	}
	return s.chooser.Choose(2, what) == 1
}

// collect moves the server's queued notifications into client inboxes.
// Nothing queued since the last collect (most steps): nothing to ask. A
// client not connected is skipped: its session is detached, and a
// detached session is sent nothing.
func (s *Sim) collect() {
	if s.m.Posted() == s.collected {
		return
	}
	s.collected = s.m.Posted()
	for _, c := range s.clients {
		if !c.connected {
			continue
		}
		notes := s.m.DrainNotifications(c.model.ID)
		for _, n := range notes {
			c.inbox = append(c.inbox, message{note: n})
		}
		if len(notes) > 0 {
			s.touch(c.idx)
		}
	}
}

// TraceString joins a trace into one text, one event per line.
func TraceString(trace []string) string { return strings.Join(trace, "\n") + "\n" }
