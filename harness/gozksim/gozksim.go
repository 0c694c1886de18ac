// Package gozksim checks the go-zookeeper code a team already has, its
// *zk.Conn calls unmodified, under zksim's deterministic scheduler.
//
// Each simulated client runs an ordinary function given a real *zk.Conn
// from github.com/go-zookeeper/zk, dialed through an in-memory pipe to
// the simulator (zk.WithDialer). Every frame the client writes becomes
// a request of the simulated client, and the scheduler chooses, between
// steps at which every goroutine is durably blocked, which client's
// request the server applies next, which reply or watch event a client
// reads next, when virtual time passes, and which fault strikes: a
// request or its reply lost (the lost create), a connection dropped and
// dialed again, a session expired or abandoned, a stale follower, a
// container reaped. Each run is a testing/synctest bubble, so the
// client's pings, timeouts and the program's own timers run on the
// bubble's fake clock, and a run is a function of its choices: it
// replays byte for byte from a trace file, and harnesstest reports a
// failure only after it replayed it, naming the step where a run that
// does not replay diverged.
//
// The Subjects Lock and Programs make carry the test (a *testing.T)
// their bubbles need: every runner of package harness runs them within
// that test (harness.Run, Explore and Replay; harnesstest.Check, a random
// walk or PCT, shrunk; harnesstest.CheckExhaustive; harnesstest.Replay).
// The zksim command, which has no test, cannot.
//
// What cannot be made deterministic, and is not: a program that starts
// goroutines of its own that race each other (the order of their
// requests is then the Go scheduler's), and a program that reads the
// wall clock outside the bubble; a run of one that does not replay is
// reported with the step where it diverged, never as a bug. A program
// must return once its ctx ends or its conn is closed: a run ends by
// closing every conn. While a simulated client is paused its program's
// timers still run, since a bubble has one clock; its connection answers
// no pings, so go-zookeeper drops it as it would. The herd checker sees
// no wake-up of a real client (whether a program reads a watch's event
// is its own affair). A reply longer than 64 KiB ends the connection
// (go-zookeeper's WithMaxBufferSize). Requests the simulator does not
// serve (auth, whoAmI, reconfig) are answered Unimplemented. See
// docs/gozksim.md.
package gozksim

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/internal/simhook"
	"github.com/zksim/zksim/internal/simwire"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zkapi"
)

// Programs is the Subject of go-zookeeper programs, one a client, each
// given its client's *zk.Conn, with invariant checked after every step
// (nil: none), as harness.Programs: a run fails on an invariant
// violation, a deadlock, a step bound or a program's error. t is the
// test whose bubbles the runs use.
func Programs(t *testing.T, invariant func(s *sim.Sim) error, programs ...func(ctx context.Context, conn *zk.Conn) error) harness.Subject {
	ps := make([]sim.Program, len(programs))
	for i, p := range programs {
		ps[i] = func(_ context.Context, c *sim.Client) error {
			r := runOf(c.Sim())
			b, err := r.bridge(c)
			if err != nil {
				return err
			}
			return b.Do(func() error { return p(r.ctx, b.Conn()) })
		}
	}
	return subject{t: t, Subject: harness.Programs(invariant, ps...)}
}

// Lock is the lock workload of harness.Lock (exclusion, orphans, herds,
// liveness; w's settings) for a lock written against *zk.Conn: acquire
// takes the lock at dir on conn and returns how to release it. name is
// the recipe line of its trace files. A client's conn lives through all
// its acquisitions; go-zookeeper's calls cannot be cancelled, so an
// acquire deadline (w.TimeoutTicks) ends nothing.
//
// go-zookeeper's own lock, as is:
//
//	gozksim.Lock(t, "gozk", func(conn *zk.Conn, dir string) (func() error, error) {
//		l := zk.NewLock(conn, dir, zk.WorldACL(zk.PermAll))
//		return l.Unlock, l.Lock()
//	}, harness.Workload{Clients: 3, Acquisitions: 2})
func Lock(t *testing.T, name string, acquire func(conn *zk.Conn, dir string) (release func() error, err error), w harness.Workload) harness.Subject {
	r := recipe.Lock{Name: name, Acquire: func(_ context.Context, conn zkapi.Conn, dir, _ string) (recipe.Held, error) {
		c, _ := simhook.ClientOf(conn).(*sim.Client)
		b, err := runOf(c.Sim()).bridge(c)
		if err != nil {
			return nil, err
		}
		var release func() error
		err = b.Do(func() error {
			var err error
			release, err = acquire(b.Conn(), dir)
			return err
		})
		if err != nil {
			return nil, err
		}
		return held{b, release}, nil
	}}
	return subject{t: t, Subject: harness.Lock(r, w)}
}

// held is an acquisition of Lock's.
type held struct {
	b       *simwire.Client
	release func() error
}

func (h held) Release(context.Context) error { return h.b.Do(h.release) }

// subject is a harness Subject whose runs are bubbles with real clients.
type subject struct {
	harness.Subject
	t *testing.T
}

// Unwrap is the Subject of harness's this one runs (harness.Run reads
// it).
func (s subject) Unwrap() harness.Subject { return s.Subject }

func (s subject) Parse(spec string) (harness.Subject, error) {
	w, err := s.Subject.Parse(spec)
	if err != nil {
		return nil, err
	}
	return subject{t: s.t, Subject: w}, nil
}

func (s subject) Resize(sh harness.Shape) harness.Subject {
	return subject{t: s.t, Subject: s.Subject.Resize(sh)}
}

// Validate is the wrapped Subject's.
func (s subject) Validate() error {
	if v, ok := s.Subject.(interface{ Validate() error }); ok {
		return v.Validate()
	}
	return nil
}

// String is the wrapped Subject's, with the client named.
func (s subject) String() string {
	if v, ok := s.Subject.(interface{ String() string }); ok {
		return v.String() + " (go-zookeeper clients)"
	}
	return s.Shape().String() + " (go-zookeeper clients)"
}

// Start makes the run a bubble with real clients, then starts the
// wrapped Subject.
func (s subject) Start(sm *sim.Sim) ([]sim.Program, harness.Judge) {
	newRun(s.t, sm)
	return s.Subject.Start(sm)
}

// run is one run's real clients.
type run struct {
	s       *sim.Sim
	tick    time.Duration
	ctx     context.Context
	cancel  context.CancelFunc
	bridges []*simwire.Client // by client index; nil until its program dials
}

// ballast raises the heap's goal by 64 MiB of address space it never
// touches. Each go-zookeeper Conn allocates a 1.5 MB buffer: thousands
// of runs a second would otherwise collect the heap and hand its pages
// back to the OS at every run, then fault them in again, which cost
// more than the rest of a run.
var (
	//lint:ignore U1000 never read: it is kept for its weight on the heap's goal
	ballast     []byte
	ballastOnce sync.Once
)

// runs finds a run's real clients from its simulated ones, which is all
// a lock recipe's Acquire is given.
var runs sync.Map // *sim.Sim -> *run

func runOf(s *sim.Sim) *run {
	r, _ := runs.Load(s)
	return r.(*run)
}

func newRun(t *testing.T, s *sim.Sim) {
	ballastOnce.Do(func() { ballast = make([]byte, 64<<20) })
	m := s.State().(*machine.Machine)
	r := &run{s: s, tick: time.Duration(m.Config().TickMillis) * time.Millisecond}
	runs.Store(s, r)
	simhook.Bubble(s, func(f func()) {
		defer runs.Delete(s)
		synctest.Test(t, func(*testing.T) {
			r.ctx, r.cancel = context.WithCancel(context.Background())
			defer r.close()
			f()
		})
	})
	simhook.OnTick(s, r.onTick)
	simhook.AddObserver(s, r)
}

// bridge is c's real client, made on first use.
func (r *run) bridge(c *sim.Client) (*simwire.Client, error) {
	if r.bridges == nil {
		r.bridges = make([]*simwire.Client, len(r.s.Clients()))
	}
	if b := r.bridges[c.Index()]; b != nil {
		return b, nil
	}
	b, err := simwire.Dialed(c)
	if err != nil {
		return nil, err
	}
	r.bridges[c.Index()] = b
	return b, nil
}

// onTick lets one tick of virtual time pass on the bubble's clock, then
// waits until the real clients are quiet again.
func (r *run) onTick() {
	for _, b := range r.bridges {
		if b != nil {
			b.Tick()
		}
	}
	time.Sleep(r.tick)
	synctest.Wait()
}

// close ends the real clients as the run ends.
func (r *run) close() {
	r.cancel()
	for _, b := range r.bridges {
		if b != nil {
			b.Close()
		}
	}
}

// Notified implements simhook.Notifier: the real client reads what the
// simulated one received.
func (r *run) Notified(c *sim.Client, n proto.Notification) {
	if r.bridges != nil {
		if b := r.bridges[c.Index()]; b != nil {
			b.Notified(n)
		}
	}
}

func (r *run) Applied(*sim.Client, proto.Request, *proto.Reply) {}
func (r *run) Expired(int64, int64)                             {}
func (r *run) Woken(*sim.Client, string, int64)                 {}
func (r *run) Blocks(*sim.Client)                               {}
