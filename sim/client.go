package sim

import (
	"context"
	"errors"
	"fmt"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/internal/zkclient"
	"github.com/zksim/zksim/zkapi"
)

// Program is what a simulated client runs. It may block only in calls on
// c.Conn(), c.Sleep, and contexts from c.WithTimeout.
type Program func(ctx context.Context, c *Client) error

type clientState uint8

// The order counts: listNormal tests st >= stWait for a wait that may end
// (stWait, stReady) and st >= stDone for a client that has ended.
const (
	stRunning    clientState = iota
	stCall                   // a request waits to be sent
	stAwaitReply             // sent; the reply is in the inbox or lost
	stWait                   // in Watch.Wait, WaitSession or Sleep
	stReady                  // a result is ready; evWake resumes it
	stDone
	stCrashed
)

type callKind uint8

const (
	callRequest callKind = iota
	callWatch
	callSession
	callSleep
	callPWatch // Next on a persistent watch
	callAwait  // a wire program's bridge waits for its condition (simhook.Await)
)

// call is the operation a parked client waits in, and its result.
type call struct {
	kind    callKind
	req     proto.Request
	session int64 // the session when the call was made
	w       *watch
	pw      *pwatch
	ctx     context.Context
	seq     uint64
	until   int64
	step    int         // the step the call was made in: where a deadlock's waiter stopped
	cond    func() bool // callAwait: the condition that ends the wait

	err error // the call's own error (a reply's is in Client.reply)

	// ctx's state as of timer epoch epoch: a parked client's context can
	// end only when the simulator fires a virtual timer.
	epoch   int
	ctxDone bool
}

// message is what a client's connection delivers: a notification, or
// (isReply) the reply to its pending request, which waits in the client
// (Client.reply) rather than here: a client has one request out at a
// time, and a message this small is cheap to queue and shift.
type message struct {
	isReply bool
	note    proto.Notification
}

// Client is one simulated ZooKeeper client. Its fields are touched only by
// whichever goroutine runs, the scheduler or the client, never both.
type Client struct {
	// read by the scheduler at every step: kept together
	state     clientState
	connected bool
	paused    bool
	closed    bool
	wire      bool // its requests are written on a connection: one that drops takes them (simhook.Wire)
	call      *call
	inbox     []message
	sim       *Sim

	idx      int
	name     string
	prog     Program
	w        *worker                           // the coroutine its program runs on
	begun    bool                              // its program has run
	conn     conn                              // by value: one allocation with the Client
	model    zkclient.Session[*watch, *pwatch] // session, replica, lastZxid, watches
	old      []int64                           // sessions the client had before this one, for blame
	pauseEnd int64
	covSeen  uint16 // the SessionEvents it went through, for Coverage
	sess     zkapi.Session
	err      error

	// rewatch is the reply to the SetWatches of the last reconnect while
	// rewatchNotes notifications it fired are still in the inbox: on the
	// wire they come before it, so the client sees its zxid only once it
	// has read them, and a connection that drops first loses them all.
	rewatch      proto.Reply
	rewatchNotes int

	slot call // reused by each call: a client has one at a time

	// reply is the reply to the client's last request that reached the
	// server, set by the send and read (by recv, the program and the
	// fingerprint) only while that request is the pending one. It is kept
	// out of the call slot, which is rewritten by every call, as a reply
	// is 208 bytes: every request copied it a few times.
	reply proto.Reply

	// spun counts the requests the program made since it last waited (a
	// function of what it was told, so of its history); owed: its pending
	// request is one past Config.SpinRequests and no time has passed
	// since it was made (Flat mode: time is owed to it).
	spun int
	owed bool

	// hist hashes everything the program has been told (replies, events,
	// session snapshots, ends of waits, the workload's choices) when the
	// run is explored: a deterministic program's state is a function of
	// it, so it stands for the program in a state's fingerprint.
	hist  history
	made  []*watch  // when exploring: every watch handle given out, in order
	pmade []*pwatch // when exploring: every persistent watch handle, in order

	// watchRoom holds the client's first watch handles, allocated with
	// it: most clients set a watch or two a run. watchesMade counts the
	// handles made.
	watchRoom   [2]watch
	watchesMade int
}

// Name is the client's name in traces: c1, c2, ...
func (c *Client) Name() string { return c.name }

// Index is the client's index, from 0.
func (c *Client) Index() int { return c.idx }

// Session is the id of the client's current session.
func (c *Client) Session() int64 { return c.model.ID }

// Sim is the run the client is in.
func (c *Client) Sim() *Sim { return c.sim }

// Conn is the client's zkapi.Conn.
func (c *Client) Conn() zkapi.Conn { return &c.conn }

// Now is the virtual time in ticks.
func (c *Client) Now() int64 { return c.sim.now }

// Logf adds a line to the trace, attributed to the client.
func (c *Client) Logf(format string, args ...any) {
	if !c.sim.cfg.NoTrace {
		c.sim.note(c.name + ": " + fmt.Sprintf(format, args...))
	}
}

// Sleep blocks for the given number of ticks of virtual time, or until ctx
// ends.
func (c *Client) Sleep(ctx context.Context, ticks int) error {
	c.spun = 0
	cl := c.newCall(call{kind: callSleep, ctx: ctx, until: c.sim.now + int64(ticks)})
	c.park(cl, stWait)
	if c.sim.hashing {
		c.foldErr(2, cl.err)
	}
	return cl.err
}

// Chance answers a yes/no question of the program's that holds percent
// of the time, as a choice of the scheduler's (see Sim.chance), so that
// it replays, shrinks and is explored like every other; the answer is
// part of what the program was told.
func (c *Client) Chance(percent int, what string) bool {
	yes := c.sim.chance(percent, what)
	if c.sim.hashing {
		c.foldAnswer(yes)
	}
	return yes
}

// WithTimeout returns a context that ends after the given ticks of virtual
// time.
func (c *Client) WithTimeout(parent context.Context, ticks int) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	c.sim.timers = append(c.sim.timers, timer{at: c.sim.now + int64(ticks), client: c.idx, ctx: ctx, cancel: cancel})
	return ctx, cancel
}

// await parks the client until cond holds or its session changes (see
// simhook.Await); on, if not nil, is the watch a deadlock names as what
// it waited on.
func (c *Client) await(cond func() bool, on *watch) {
	c.spun = 0
	cl := c.newCall(call{kind: callAwait, cond: cond, seq: c.sess.Seq, w: on})
	c.park(cl, stWait)
}

// newCall reuses the client's call slot.
func (c *Client) newCall(v call) *call {
	v.step = c.sim.step
	c.slot = v
	return &c.slot
}

// errStopped unwinds a parked client's goroutine when the run ends
// (a panic, not runtime.Goexit: Goexit inside a coroutine would end the
// scheduler's goroutine too).
var errStopped = errors.New("sim: run stopped")

// request notes a request the program makes, before it parks: in Flat
// mode, one past Config.SpinRequests without a wait is owed time.
func (c *Client) request() {
	c.spun++
	c.owed = c.sim.cfg.Flat && c.sim.cfg.SpinRequests >= 0 && c.spun > c.sim.cfg.SpinRequests
}

// park hands control to the scheduler until an event resumes the client.
func (c *Client) park(cl *call, st clientState) {
	if c.sim.stopping {
		panic(errStopped)
	}
	c.call, c.state = cl, st
	if cl.ctx != nil {
		cl.epoch, cl.ctxDone = c.sim.epoch, cl.ctx.Err() != nil
	}
	if !c.w.yield(struct{}{}) || c.sim.stopping {
		panic(errStopped)
	}
	c.state = stRunning
}

// start gives the client a worker; its first run starts the program.
func (c *Client) start(ctx context.Context) {
	c.w = c.sim.takeWorker()
	c.w.body = func() {
		defer func() {
			if r := recover(); r != nil && r != errStopped {
				c.err = fmt.Errorf("%s panicked: %v", c.name, r)
			}
			c.state = stDone
		}()
		c.err = c.prog(ctx, c)
	}
}

// growStack grows the calling goroutine's stack to what a client program
// needs while it is still shallow: a coroutine starts with the smallest
// stack, and growing it later, deep inside a request, copied and adjusted
// every frame (about 5% of a schedule's time at 9821b6b).
//
//go:noinline
func growStack() {
	if stackNever { // the frame is reserved, and checked for, but not written
		var pad [clientStack]byte
		keep(pad[:])
	}
}

// stackNever is never set: see growStack.
var stackNever bool

// clientStack is the frame growStack reserves: the stack grows to 16 KB
// at once (in measurements 16 KB of frame did no better).
const clientStack = 8 << 10

// keep stops the compiler from dropping growStack's frame.
//
//go:noinline
func keep(b []byte) { b[0] = 0 }

// run resumes the client and waits until it parks or ends.
func (c *Client) run() {
	if c.w.body == nil { // the program has ended
		return
	}
	c.begun = true
	if _, ok := c.w.resume(); !ok {
		c.w.dead = true
	}
}

// stop ends the client's program, unwinding it from park if it is
// parked (the run is stopping: park panics), and gives its worker back;
// it returns when the program has ended. A program never run is never
// started.
func (c *Client) stop() {
	if c.begun && !c.w.dead {
		c.run() // (nothing if the program has ended)
	}
	c.w.body = nil
	c.sim.giveBack(c.w)
}

// ready reports whether a parked client's wait can end now: its condition
// holds (checked first: it is cheap) or its context has ended.
func (c *Client) ready() bool {
	switch c.state {
	case stReady:
		return true
	case stWait:
	default:
		return false
	}
	cl := c.call
	switch cl.kind {
	case callWatch:
		if cl.w.fired {
			return true
		}
	case callPWatch:
		if cl.pw.ready() {
			return true
		}
	case callSession:
		if c.sess.Seq > cl.seq {
			return true
		}
	case callSleep:
		if c.sim.now >= cl.until {
			return true
		}
	case callAwait:
		if c.sess.Seq > cl.seq || cl.cond() {
			return true
		}
	}
	if cl.ctx == nil {
		return false
	}
	if cl.epoch != c.sim.epoch {
		cl.epoch, cl.ctxDone = c.sim.epoch, cl.ctx.Err() != nil
	}
	return cl.ctxDone
}

// finishWait fills the result of a wait that can end.
func (c *Client) finishWait() {
	cl := c.call
	if c.state == stReady {
		return
	}
	if cl.ctx != nil && cl.ctx.Err() != nil {
		if !(cl.kind == callWatch && cl.w.fired) && !(cl.kind == callSession && c.sess.Seq > cl.seq) &&
			!(cl.kind == callPWatch && cl.pw.ready()) {
			cl.err = cl.ctx.Err()
		}
	}
}

func (c *Client) setState(st zkapi.State) {
	c.sess = zkapi.Session{ID: c.model.ID, State: st, Seq: c.sess.Seq + 1}
}

// newWatch returns room for a new watch handle: never one given out
// before, as a handle lives as long as the program keeps it.
func (c *Client) newWatch() *watch {
	c.watchesMade++
	if c.watchesMade <= len(c.watchRoom) {
		return &c.watchRoom[c.watchesMade-1]
	}
	return new(watch)
}

// watch is a one-shot handle of a simulated client.
type watch struct {
	c     *Client
	id    int // when exploring: its index in c.made
	path  string
	fired bool
	ev    zkapi.Event
	zxid  int64 // of the change that fired it; -1 if none
	stray bool  // set by a request made on a session since replaced
	woke  bool  // a Wait has returned its event
}

func (w *watch) fire(ev zkapi.Event, zxid int64) {
	if !w.fired {
		w.fired, w.ev, w.zxid = true, ev, zxid
	}
}

// Wait implements zkapi.Watch: a scheduling point. A Wait that returns
// because the watch fired is a wakeup, which the herd checker counts.
func (w *watch) Wait(ctx context.Context) (zkapi.Event, error) {
	w.c.spun = 0
	ev, err := w.wait(ctx)
	if c := w.c; c.sim.hashing {
		c.foldEvent(ev, w.zxid, err)
	}
	return ev, err
}

func (w *watch) wait(ctx context.Context) (zkapi.Event, error) {
	if !w.fired {
		if err := ctx.Err(); err != nil {
			return zkapi.Event{}, err
		}
		for _, o := range w.c.sim.obs {
			o.Blocks(w.c)
		}
		cl := w.c.newCall(call{kind: callWatch, w: w, ctx: ctx})
		w.c.park(cl, stWait)
		if !w.fired {
			return zkapi.Event{}, cl.err
		}
	}
	if !w.woke && !w.stray && w.zxid >= 0 && w.ev.Type != zkapi.EventNotWatching {
		w.woke = true
		for _, o := range w.c.sim.obs {
			o.Woken(w.c, w.path, w.zxid)
		}
	}
	return w.ev, nil
}
