package zoo_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/fakehook"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// safety bounds every wait of a scenario, so that a broken scenario fails
// instead of hanging. Nothing waits for it to pass: it is not a clock the
// scenarios synchronise on.
const safety = time.Minute

// env is a fake ZooKeeper for scripted lock scenarios. Acquire attempts run
// in goroutines the env starts and joins; the test goroutine observes the
// server's state with WaitUntil and steers with cancels and faults.
type env struct {
	t   *testing.T
	srv *fakezk.Server
	dir string
	ctx context.Context // ends at the safety deadline

	mu       sync.Mutex
	attempts []*attempt
	wg       sync.WaitGroup

	imu     sync.Mutex
	rules   []rule         // one-shot faults, first match wins
	lasting []rule         // faults that stay, tried after rules
	senders map[int64]bool // while recording: sessions that sent requests
}

// rule is a one-shot fault: ok says whether it applies to this request.
type rule func(m *machine.Machine, sid int64, req proto.Request) (f fakezk.Fault, ok bool)

// attempt is one Acquire call running in its own goroutine.
type attempt struct {
	id     string
	conn   zkapi.Conn // a fakezk.Conn, or a wrapper set before run
	sid    int64      // the session it started with
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // closed when Acquire has returned
	held   recipe.Held   // written before done is closed
	err    error
}

// newEnv returns a server whose children listings are shuffled (seeded),
// with the persistent lock directory /zoo/lock. Cleanup cancels every
// attempt, closes the server and joins every goroutine.
func newEnv(t *testing.T) *env {
	ctx, cancel := context.WithTimeout(context.Background(), safety)
	e := &env{t: t, srv: fakezk.MustServer(fakezk.Config{Seed: 1}), dir: "/zoo/lock", ctx: ctx}
	fakehook.Intercept(e.srv, e.intercept)
	t.Cleanup(func() {
		e.mu.Lock()
		for _, a := range e.attempts {
			a.cancel()
		}
		e.mu.Unlock()
		e.srv.Close()
		e.wg.Wait()
		cancel()
	})
	admin := e.connect()
	for _, p := range []string{"/zoo", e.dir} {
		if _, err := admin.Create(ctx, p, nil, zkapi.Persistent); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func (e *env) connect() fakezk.Conn {
	c, err := e.srv.Connect(fakezk.ConnOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

func (e *env) intercept(m *machine.Machine, sid int64, req proto.Request) fakezk.Fault {
	e.imu.Lock()
	defer e.imu.Unlock()
	if e.senders != nil {
		e.senders[sid] = true
	}
	for i, r := range e.rules {
		if f, ok := r(m, sid, req); ok {
			e.rules = slices.Delete(e.rules, i, i+1)
			return f
		}
	}
	for _, r := range e.lasting {
		if f, ok := r(m, sid, req); ok {
			return f
		}
	}
	return fakezk.Deliver
}

// once adds a one-shot fault rule.
func (e *env) once(r rule) {
	e.imu.Lock()
	defer e.imu.Unlock()
	e.rules = append(e.rules, r)
}

// always adds a fault rule that is never used up.
func (e *env) always(r rule) {
	e.imu.Lock()
	defer e.imu.Unlock()
	e.lasting = append(e.lasting, r)
}

// record starts noting which sessions send requests; the function it
// returns stops and returns them.
func (e *env) record() func() map[int64]bool {
	e.imu.Lock()
	defer e.imu.Unlock()
	e.senders = map[int64]bool{}
	return func() map[int64]bool {
		e.imu.Lock()
		defer e.imu.Unlock()
		s := e.senders
		e.senders = nil
		return s
	}
}

// prepare opens the session of an attempt without starting it, so that
// faults can name its session first.
func (e *env) prepare(id string) *attempt {
	c := e.connect()
	ctx, cancel := context.WithCancel(e.ctx)
	a := &attempt{id: id, conn: c, sid: c.Session().ID, ctx: ctx, cancel: cancel, done: make(chan struct{})}
	e.mu.Lock()
	e.attempts = append(e.attempts, a)
	e.mu.Unlock()
	return a
}

// acquireFunc is the type of recipe.Lock's Acquire and AcquireRead.
type acquireFunc = func(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error)

func (e *env) run(a *attempt, acquire acquireFunc) *attempt {
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		a.held, a.err = acquire(a.ctx, a.conn, e.dir, a.id)
		close(a.done)
	}()
	return a
}

func (e *env) start(acquire acquireFunc, id string) *attempt {
	return e.run(e.prepare(id), acquire)
}

func (a *attempt) finished() bool {
	select {
	case <-a.done:
		return true
	default:
		return false
	}
}

// join waits for the attempt's Acquire to return.
func (e *env) join(a *attempt) (recipe.Held, error) {
	e.t.Helper()
	select {
	case <-a.done:
		return a.held, a.err
	case <-e.ctx.Done():
		e.t.Fatalf("%s: Acquire did not return", a.id)
		return nil, nil
	}
}

func (e *env) mustHold(a *attempt) recipe.Held {
	e.t.Helper()
	h, err := e.join(a)
	if err != nil {
		e.t.Fatalf("%s: Acquire: %v", a.id, err)
	}
	return h
}

func (e *env) release(a *attempt) {
	e.t.Helper()
	if err := a.held.Release(e.ctx); err != nil {
		e.t.Fatalf("%s: Release: %v", a.id, err)
	}
}

// firstDone waits for the first of the attempts to return.
func (e *env) firstDone(as []*attempt) *attempt {
	e.t.Helper()
	cases := []reflect.SelectCase{{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(e.ctx.Done())}}
	for _, a := range as {
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(a.done)})
	}
	i, _, _ := reflect.Select(cases)
	if i == 0 {
		e.t.Fatal("no attempt returned")
	}
	return as[i-1]
}

// until waits until cond holds of the server while a is still running
// (true) or until a returns (false).
func (e *env) until(a *attempt, cond func(*machine.Machine) bool) bool {
	e.t.Helper()
	ctx, cancel := context.WithCancel(e.ctx)
	watcher := make(chan struct{})
	go func() {
		defer close(watcher)
		select {
		case <-a.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	err := fakehook.WaitUntil(ctx, e.srv, cond)
	cancel()
	<-watcher
	switch {
	case a.finished():
		return false
	case err == nil:
		return true
	}
	e.t.Fatalf("%s: neither returned nor reached the awaited state", a.id)
	return false
}

// waiting: the session waits for the lock, holding a watch on one of the
// lock directory's children, or on the directory while there is a node to
// wait for (the directory-watching recipes' holders keep the child watch
// of the listing that granted them the lock).
func (e *env) waiting(sid int64) func(*machine.Machine) bool {
	return func(m *machine.Machine) bool { return e.watchedBy(m, sid) != "" }
}

// watchedBy names the node of the lock directory the session waits on,
// at any depth (package semaphore's first waiter watches dir/leases, its
// other waiters nodes in dir/queue).
func (e *env) watchedBy(m *machine.Machine, sid int64) string {
	if _, child := m.Watchers(0, e.dir); slices.Contains(child, sid) && blocked(m, e.dir, sid) {
		return e.dir
	}
	for _, p := range below(m, e.dir) {
		data, child := m.Watchers(0, p)
		_, st, _ := m.Node(p)
		if slices.Contains(data, sid) || (slices.Contains(child, sid) && (st.EphemeralOwner != 0 || blocked(m, p, sid))) {
			return p
		}
	}
	return ""
}

// below lists the paths under dir at any depth, each before its own
// children.
func below(m *machine.Machine, dir string) []string {
	var out []string
	for _, k := range m.Children(dir) {
		p := dir + "/" + k
		out = append(append(out, p), below(m, p)...)
	}
	return out
}

// ephemeralsBelow lists the ephemeral nodes under dir at any depth.
func ephemeralsBelow(m *machine.Machine, dir string) []string {
	var out []string
	for _, p := range below(m, dir) {
		if _, st, ok := m.Node(p); ok && st.EphemeralOwner != 0 {
			out = append(out, strings.TrimPrefix(p, dir+"/"))
		}
	}
	return out
}

// blocked: dir holds a node of another session, or two of sid's own.
func blocked(m *machine.Machine, dir string, sid int64) bool {
	own := 0
	for _, k := range m.Children(dir) {
		_, st, _ := m.Node(dir + "/" + k)
		if st.EphemeralOwner != sid {
			return true
		}
		own++
	}
	return own > 1
}

// untilWaiting: true once a waits for the lock, false if it returns.
func (e *env) untilWaiting(a *attempt) bool {
	e.t.Helper()
	return e.until(a, e.waiting(a.sid))
}

// mustWait: a must be waiting, not holding.
func (e *env) mustWait(a *attempt) {
	e.t.Helper()
	if !e.untilWaiting(a) {
		e.t.Fatalf("%s returned (held %v, err %v) where it should wait", a.id, a.held != nil, a.err)
	}
}

// holder starts an attempt that must get the lock.
func (e *env) holder(acquire acquireFunc, id string) *attempt {
	e.t.Helper()
	a := e.start(acquire, id)
	e.mustHold(a)
	return a
}

// waiter starts an attempt that must wait for the lock.
func (e *env) waiter(acquire acquireFunc, id string) *attempt {
	e.t.Helper()
	a := e.start(acquire, id)
	e.mustWait(a)
	return a
}

// queueOfThree: a holder holds, then b and, after it, c wait.
func (e *env) queueOfThree(r recipe.Lock) (holder, b, c *attempt) {
	e.t.Helper()
	holder = e.holder(r.Acquire, "holder")
	b = e.waiter(r.Acquire, "b")
	c = e.waiter(r.Acquire, "c")
	return holder, b, c
}

// allWaiting: every attempt's session waits for the lock at once.
func (e *env) allWaiting(as []*attempt) {
	e.t.Helper()
	err := fakehook.WaitUntil(e.ctx, e.srv, func(m *machine.Machine) bool {
		for _, a := range as {
			if e.watchedBy(m, a.sid) == "" {
				return false
			}
		}
		return true
	})
	if err != nil {
		e.t.Fatal("waiters never all waited at once")
	}
}

// inspect reads the server's state.
func inspect[T any](e *env, f func(m *machine.Machine) T) T {
	var v T
	fakehook.Inspect(e.srv, func(m *machine.Machine) { v = f(m) })
	return v
}

// nodeOf names the node under the lock directory (at any depth) the
// session owns.
func (e *env) nodeOf(sid int64) string {
	return inspect(e, func(m *machine.Machine) string {
		for _, p := range below(m, e.dir) {
			if _, st, ok := m.Node(p); ok && st.EphemeralOwner == sid {
				return p
			}
		}
		return ""
	})
}

// describe names who waits on what, for failure details.
func (e *env) describe(a *attempt) string {
	return inspect(e, func(m *machine.Machine) string {
		p := e.watchedBy(m, a.sid)
		_, st, _ := m.Node(p)
		return fmt.Sprintf("%s waits on %s (owner %#x, alive %v)", a.id, p, st.EphemeralOwner, m.Alive(st.EphemeralOwner))
	})
}
