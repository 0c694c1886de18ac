package interop_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/internal/zktest"
)

// zkClient is an unmodified go-zookeeper connection with a record of its
// session states (from zk.WithEventCallback, which sees every one).
type zkClient struct {
	*zk.Conn
	mu      sync.Mutex
	states  []zk.State
	changed chan struct{}
}

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}

// dialZK connects go-zookeeper to the fake and waits for its session. The
// connection is closed, and its goroutines waited for, when the test ends.
func dialZK(t *testing.T, ctx context.Context, f *fake) *zkClient {
	t.Helper()
	c := &zkClient{changed: make(chan struct{})}
	// The address twice, as an ensemble gives several: with one address,
	// go-zookeeper's host list wraps around at once on a reconnect
	// (conn.go connect: hostProvider.Next reports retryStart), which fails
	// every request queued meanwhile with ErrNoServer, so its protected
	// create's retry after a lost reply failed at random in CI; with two
	// it reconnects first, as with a real ensemble's several addresses.
	conn, events, err := zk.Connect([]string{f.addr, f.addr}, 4*time.Second,
		zk.WithLogger(quietLogger{}), zk.WithEventCallback(c.observe))
	if err != nil {
		t.Fatal(err)
	}
	c.Conn = conn // before any use: the callback reads only states
	t.Cleanup(func() {
		conn.Close()
		for range events { // closed once go-zookeeper's loop has ended
		}
	})
	if err := c.waitState(ctx, 0, zk.StateHasSession); err != nil {
		t.Fatalf("go-zookeeper: no session: %v", err)
	}
	return c
}

func (c *zkClient) observe(ev zk.Event) {
	if ev.Type != zk.EventSession {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.states = append(c.states, ev.State)
	close(c.changed)
	c.changed = make(chan struct{})
}

// mark is the number of states seen so far, for waitState.
func (c *zkClient) mark() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.states)
}

// waitState waits until the connection reports st after the first from
// states.
func (c *zkClient) waitState(ctx context.Context, from int, st zk.State) error {
	for {
		c.mu.Lock()
		seen, ch := c.states[min(from, len(c.states)):], c.changed
		c.mu.Unlock()
		for _, s := range seen {
			if s == st {
				return nil
			}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// zkLock is an unmodified zk.Lock with the client it runs on.
type zkLock struct {
	l *zk.Lock
	c *zkClient
}

func newZKLock(c *zkClient, dir string) zkLock {
	return zkLock{zk.NewLock(c.Conn, dir, zk.WorldACL(zk.PermAll)), c}
}

func (l zkLock) Lock() error   { return l.l.Lock() }
func (l zkLock) Unlock() error { return l.l.Unlock() }

// lockAsync runs l.Lock on a goroutine (zktest.Go). zk.Lock takes no
// context: only closing its connection ends a wait, which a cleanup
// registered after Go's, and so run before it, does.
func lockAsync(t *testing.T, ctx context.Context, l zkLock) *zktest.Async[struct{}] {
	a := zktest.Go(t, ctx, func(context.Context) (struct{}, error) { return struct{}{}, l.Lock() })
	t.Cleanup(func() { l.c.Close() })
	return a
}

// TestGoZKLock_LostCreateReply (scenario 1): the create of the lock node is
// applied and its reply lost. go-zookeeper's protected create
// (CreateProtectedEphemeralSequential, conn.go) lists the directory after
// ErrConnectionClosed and finds its node by the guid in its name: the lock
// is acquired, no orphan is left, and the next contender is not blocked.
func TestGoZKLock_LostCreateReply(t *testing.T) {
	const dir = "/locks/lost-create"
	f, ctx := scenario(t, dir)
	a := dialZK(t, ctx, f)
	f.loseCreateReply(t, dir, a.SessionID())
	la := newZKLock(a, dir)
	if err := la.Lock(); err != nil {
		t.Fatalf("A: Lock after a lost create reply = %v; measured: acquired", err)
	}
	f.faultFired(t)
	f.only(t, dir, "A's node", ownedBy(a.SessionID()))
	if err := la.Unlock(); err != nil {
		t.Fatalf("A: Unlock: %v", err)
	}
	f.noOrphan(t, dir, "A's Unlock")
	b := dialZK(t, ctx, f)
	lockAsync(t, ctx, newZKLock(b, dir)).Receive(t, ctx, "B after A released: Lock")
}

// assertHangs confirms a Lock blocked: no result within hangWindow.
func assertHangs(t *testing.T, ctx context.Context, who string, a *zktest.Async[struct{}]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, hangWindow)
	defer cancel()
	select {
	case <-a.Done():
		_, err := a.Result()
		t.Fatalf("%s: Lock returned %v; measured: it hangs", who, err)
	case <-ctx.Done():
	}
}

// TestGoZKLock_ConnLossListingChildren (scenario 2): the create is applied
// and answered, then the connection drops on the getChildren that follows.
// zk.Lock returns the error as is (lock.go: "children, _, err :=
// l.c.Children(l.path); if err != nil { return err }") and leaves its node
// behind. Its session lives on, so the node is an orphan that blocks the
// queue: a retry by the same client waits on its own orphan, and so does
// every later contender, until A's session ends.
func TestGoZKLock_ConnLossListingChildren(t *testing.T) {
	const dir = "/locks/children-loss"
	f, ctx := scenario(t, dir)
	a := dialZK(t, ctx, f)
	f.loseChildren(t, dir, a.SessionID())
	la := newZKLock(a, dir)
	seen := a.mark()
	if err := la.Lock(); !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("A: Lock = %v; measured: zk.ErrConnectionClosed", err)
	}
	live := func(n node) bool { return n.Owner == a.SessionID() && n.Alive }
	orphan := dir + "/" + f.only(t, dir, "an orphan of A's live session (measured)", live).Name

	// A retries, as a caller would, once reconnected (a request queued
	// while go-zookeeper reconnects to its only server may fail with
	// ErrNoServer instead): its new node queues behind its orphan.
	if err := a.waitState(ctx, seen, zk.StateHasSession); err != nil {
		t.Fatalf("A never reconnected: %v", err)
	}
	retry := lockAsync(t, ctx, la)
	if on := f.waitParked(t, ctx, a.SessionID(), dir); on != orphan {
		t.Fatalf("A's retry waits on %s, want its orphan %s", on, orphan)
	}
	assertHangs(t, ctx, "A's retry behind its own orphan", retry)

	b := dialZK(t, ctx, f)
	waiting := lockAsync(t, ctx, newZKLock(b, dir))
	f.waitParked(t, ctx, b.SessionID(), dir)
	assertHangs(t, ctx, "B behind A's orphan", waiting)

	// Only the end of A's session frees the queue.
	a.Close()
	waiting.Receive(t, ctx, "B once A's session closed: Lock")
	if _, err := retry.Result(); err == nil {
		t.Fatal("A's retry acquired after its Conn was closed")
	}
}

// TestGoZKLock_SessionExpiredWhileHolding (scenario 3): the server expires
// the holder's session. B acquires. go-zookeeper opens a new session on
// the same *zk.Conn (conn.go, authenticate: StateExpired, then loop
// reconnects with session id 0); only the connection's event stream says
// so. The zk.Lock keeps believing it holds: Lock answers ErrDeadlock
// ("trying to acquire a lock twice") while B holds, and Unlock fails with
// ErrNoNode without forgetting the path, so the handle stays wedged.
func TestGoZKLock_SessionExpiredWhileHolding(t *testing.T) {
	const dir = "/locks/expired-holder"
	f, ctx := scenario(t, dir)
	a, b := dialZK(t, ctx, f), dialZK(t, ctx, f)
	la := newZKLock(a, dir)
	if err := la.Lock(); err != nil {
		t.Fatalf("A: Lock: %v", err)
	}
	waiting := lockAsync(t, ctx, newZKLock(b, dir))
	f.waitParked(t, ctx, b.SessionID(), dir)

	old, seen := a.SessionID(), a.mark()
	if err := f.srv.Expire(old); err != nil {
		t.Fatal(err)
	}
	waiting.Receive(t, ctx, "B after A's session expired: Lock")
	if err := a.waitState(ctx, seen, zk.StateExpired); err != nil {
		t.Fatalf("A's Conn never reported StateExpired: %v", err)
	}
	if err := a.waitState(ctx, seen, zk.StateHasSession); err != nil {
		t.Fatalf("A's Conn never got a new session: %v", err)
	}
	if a.SessionID() == old {
		t.Fatalf("A's Conn kept session %#x after its expiry", old)
	}
	// Double holding: B holds, and A's handle still says it does.
	if err := la.Lock(); !errors.Is(err, zk.ErrDeadlock) {
		t.Fatalf("A: Lock while B holds = %v; measured: zk.ErrDeadlock (A still believes it holds)", err)
	}
	if err := la.Unlock(); !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("A: Unlock = %v; measured: zk.ErrNoNode", err)
	}
	if err := la.Lock(); !errors.Is(err, zk.ErrDeadlock) {
		t.Fatalf("A: Lock after the failed Unlock = %v; measured: zk.ErrDeadlock (wedged)", err)
	}
	f.only(t, dir, "B's node", ownedBy(b.SessionID()))
}

// TestGoZKLock_PredecessorExpiresBeforeWatch (scenario 4): B lists the
// directory and sees A's node; A's session expires just before B's getData
// on it. zk.Lock treats ErrNoNode from GetW as "try again" (lock.go:
// "else if err != nil && err == ErrNoNode { continue }"), lists again and
// acquires.
func TestGoZKLock_PredecessorExpiresBeforeWatch(t *testing.T) {
	const dir = "/locks/dying-predecessor"
	f, ctx := scenario(t, dir)
	a, b := dialZK(t, ctx, f), dialZK(t, ctx, f)
	if err := newZKLock(a, dir).Lock(); err != nil {
		t.Fatalf("A: Lock: %v", err)
	}
	fired := f.expireBeforeWatch(t, dir, a.SessionID(), b.SessionID())
	lockAsync(t, ctx, newZKLock(b, dir)).Receive(t, ctx, "B after its predecessor vanished: Lock")
	f.predecessorGone(t, dir, fired, "B's node", ownedBy(b.SessionID()))
}
