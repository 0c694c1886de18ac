package lock_test

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zksim/zksim/expire"
	"github.com/zksim/zksim/internal/locktest"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// These tests run lock.Mutex on real servers (see package internal/zktest for the
// environment variables; they skip without them). Each client has a
// session of its own, as separate processes would.

// TestMutex_EnsembleContention: 8 sessions share 200 acquisitions of one
// lock on a 3-node ensemble. Inside the critical section each holder checks
// an in-process resource that counts holders (more than one is overlap)
// and accepts a write only with a fencing token above the last one; every
// tenth holder also makes a real fenced write (Lease.Fenced) of a data node
// it first reads, which must hold an earlier holder's token. Once all
// sessions have released and closed, the lock directory is empty.
func TestMutex_EnsembleContention(t *testing.T) {
	c := zktest.Serving(t, zktest.Ensemble(t))
	ctx := zktest.Context(t, 3*time.Minute)
	admin := zktest.Dial(t, ctx, c.Addrs, gozk.Config{})
	root := zktest.Root(t, ctx, admin, "/zksim-lock-test-")
	conns := zktest.DialN(t, ctx, c.Addrs, 8, gozk.Config{})
	run := newContention(t, ctx, admin, root, 200)
	start := time.Now()
	errs := run.run(ctx, conns)
	elapsed := time.Since(start)
	for _, err := range errs {
		t.Error(err)
	}
	run.check(t, ctx, admin)
	t.Logf("%d acquisitions by %d sessions in %v (%v each); %d fenced writes; %d connection losses retried",
		run.completed.Load(), len(conns), elapsed, elapsed/time.Duration(max(run.completed.Load(), 1)),
		run.fenced.Load(), run.connLoss.Load())
	zktest.CloseAll(t, conns)
	locktest.NoChildren(t, ctx, admin, run.dir, "after every session closed")
}

// TestMutex_SessionExpiredMidHold is docs/zk-semantics.md bug scenario 3
// (CURATOR-206): the holder's session is expired by the server (forced
// with expire.Capture.Kill, Curator's KillSession) while a second
// client waits. The old holder is told (Wait and Check report ErrLost), the
// second client acquires with a larger token, the stale holder's token is
// refused by the fencing resource, its Fenced write is refused with
// ErrLost, and its Release reports ErrLost.
func TestMutex_SessionExpiredMidHold(t *testing.T) {
	t.Run("ensemble", func(t *testing.T) { testExpiredMidHold(t, zktest.Serving(t, zktest.Ensemble(t)).Addrs) })
	t.Run("standalone", func(t *testing.T) { testExpiredMidHold(t, zktest.Standalone(t)) })
}

func testExpiredMidHold(t *testing.T, addrs []string) {
	ctx := zktest.Context(t, time.Minute)
	admin := zktest.Dial(t, ctx, addrs, gozk.Config{})
	root := zktest.Root(t, ctx, admin, "/zksim-lock-test-")
	dir, data := root+"/lock", root+"/data"
	zktest.Create(t, ctx, admin, data)
	var capture expire.Capture
	// The longest timeout the servers grant (20 ticks): only the kill can
	// expire this session within the test.
	connA := zktest.Dial(t, ctx, addrs, gozk.Config{SessionTimeout: 10 * time.Second, Dialer: capture.Dial})
	connB := zktest.Dial(t, ctx, addrs, gozk.Config{})
	stale := ensMutex(t, connA, dir, "stale")
	next := ensMutex(t, connB, dir, "next")
	res := &resource{}

	la, err := stale.Acquire(ctx)
	if err != nil {
		t.Fatalf("A: Acquire: %v", err)
	}
	tokA := zktest.Token(t, ctx, la, "A")
	if err := res.write("A", tokA); err != nil {
		t.Fatalf("A's first write: %v", err)
	}
	if _, err := la.Fenced(ctx, zkapi.SetOp{Path: data, Data: locktest.FormatInt(tokA), Version: zkapi.AnyVersion}); err != nil {
		t.Fatalf("A: Fenced while holding: %v", err)
	}
	waiting := zktest.Go(t, ctx, next.Acquire)
	if err := locktest.WaitChildren(ctx, admin, dir, 2); err != nil {
		t.Fatal(err)
	}

	killed := time.Now()
	if err := capture.Kill(ctx, la.Session()); err != nil {
		t.Fatalf("Kill(%#x): %v", la.Session(), err)
	}
	if err := la.Wait(ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("A: Wait after the kill = %v, want ErrLost", err)
	}
	told := time.Since(killed)
	if err := la.Check(); !errors.Is(err, recipe.ErrLost) {
		t.Errorf("A: Check after the kill = %v, want ErrLost", err)
	}
	lb := waiting.Receive(t, ctx, "B: Acquire")
	granted := time.Since(killed)
	tokB := zktest.Token(t, ctx, lb, "B")
	if tokB <= tokA {
		t.Errorf("B's token %d is not above the stale holder's %d", tokB, tokA)
	}
	if err := res.write("B", tokB); err != nil {
		t.Errorf("B's write refused: %v", err)
	}
	if _, err := lb.Fenced(ctx, zkapi.SetOp{Path: data, Data: locktest.FormatInt(tokB), Version: zkapi.AnyVersion}); err != nil {
		t.Errorf("B: Fenced: %v", err)
	}

	// The stale holder carries on as if it still held the lock.
	if err := res.write("A", tokA); !errors.Is(err, errStaleToken) {
		t.Errorf("stale write with A's token %d after B's %d = %v, want it refused", tokA, tokB, err)
	}
	if _, err := la.Fenced(ctx, zkapi.SetOp{Path: data, Data: []byte("stale"), Version: zkapi.AnyVersion}); !errors.Is(err, recipe.ErrLost) {
		t.Errorf("A: Fenced after the kill = %v, want ErrLost", err)
	}
	if got := locktest.ReadInt(t, ctx, admin, data); got != tokB {
		t.Errorf("data node holds %d, want B's token %d", got, tokB)
	}
	if err := la.Release(ctx); !errors.Is(err, recipe.ErrLost) {
		t.Errorf("A: Release after the kill = %v, want ErrLost", err)
	}
	if err := lb.Release(ctx); err != nil {
		t.Errorf("B: Release: %v", err)
	}
	locktest.NoChildren(t, ctx, admin, dir, "after both released")
	t.Logf("after the kill: stale holder told in %v, B granted in %v; tokens A=%#x B=%#x; resource refused %v",
		told, granted, tokA, tokB, res.rejections())
}

// TestMutex_EnsembleLeaderKill runs the contention of
// TestMutex_EnsembleContention and SIGKILLs the ensemble's leader once in
// the middle. Requests fail with connection loss while the others elect a
// new leader; acquisitions are retried. Exclusion and fencing must hold
// throughout, every acquisition must complete, and no lock node may be left
// behind. The killed server is restarted afterwards.
func TestMutex_EnsembleLeaderKill(t *testing.T) {
	c := zktest.Serving(t, zktest.EnsembleExclusive(t))
	if len(c.Addrs) < 3 {
		t.Skipf("%s has %d servers; a leader kill needs 3 or more", c.Dir, len(c.Addrs))
	}
	ctx := zktest.Context(t, 4*time.Minute)
	ensAllUp(t, ctx, c)
	admin := zktest.Dial(t, ctx, c.Addrs, gozk.Config{SessionTimeout: 8 * time.Second})
	root := zktest.Root(t, ctx, admin, "/zksim-lock-test-")
	// Sessions survive the election (about a second) with room to spare.
	conns := zktest.DialN(t, ctx, c.Addrs, 8, gozk.Config{SessionTimeout: 8 * time.Second})
	run := newContention(t, ctx, admin, root, 200)
	const killAt = 60
	mid := make(chan struct{})
	run.onDone = func(n int64) {
		if n == killAt {
			close(mid)
		}
	}
	var errs []error
	runDone := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(runDone)
		errs = run.run(ctx, conns)
	}()
	t.Cleanup(func() { <-runDone })
	select {
	case <-mid:
	case <-runDone:
		t.Fatalf("contention ended before the kill: %v", errs)
	}
	old, err := c.Leader()
	if err != nil {
		t.Fatalf("Leader: %v", err)
	}
	t.Cleanup(func() { zktest.RestartIfDown(t, c, old) })
	killed := time.Now()
	if err := c.Kill(old); err != nil {
		t.Fatalf("Kill(%d): %v", old, err)
	}
	leader, err := c.WaitLeader(ctx)
	if err != nil {
		t.Fatalf("WaitLeader after killing %d: %v", old, err)
	}
	elected := time.Since(killed)
	<-runDone
	elapsed := time.Since(start)
	for _, err := range errs {
		t.Error(err)
	}
	run.check(t, ctx, admin)
	t.Logf("killed leader %d after %d acquisitions; server %d leads %v later; %d acquisitions in %v, longest gap between two %v; %d connection losses retried",
		old, killAt, leader, elected, run.completed.Load(), elapsed, run.longestGap(), run.connLoss.Load())
	zktest.CloseAll(t, conns)
	locktest.NoChildren(t, ctx, admin, run.dir, "after every session closed")
	if err := c.Restart(old); err != nil {
		t.Fatalf("Restart(%d): %v", old, err)
	}
	if _, err := c.WaitLeader(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestMutex_EnsembleRoundTrips counts the requests lock.Mutex makes: an
// uncontended Acquire is a create and a getChildren, Release a delete, the
// first Token an exists, and a TryAcquire that finds the lock held creates,
// lists and deletes its node.
func TestMutex_EnsembleRoundTrips(t *testing.T) {
	c := zktest.Serving(t, zktest.Ensemble(t))
	ctx := zktest.Context(t, time.Minute)
	admin := zktest.Dial(t, ctx, c.Addrs, gozk.Config{})
	root := zktest.Root(t, ctx, admin, "/zksim-lock-test-")
	dir := root + "/lock"
	zktest.Create(t, ctx, admin, dir)
	cc := &countingConn{Conn: zktest.Dial(t, ctx, c.Addrs, gozk.Config{})}
	m := ensMutex(t, cc, dir, "counted")
	other := ensMutex(t, zktest.Dial(t, ctx, c.Addrs, gozk.Config{}), dir, "other")

	cc.reset()
	l, err := m.Acquire(ctx)
	ensWantOps(t, cc, "Acquire", err, "children=1 create=1")
	_, err = l.Token(ctx)
	ensWantOps(t, cc, "Token", err, "exists=1")
	_, err = l.Token(ctx)
	ensWantOps(t, cc, "second Token", err, "")
	err = l.Release(ctx)
	ensWantOps(t, cc, "Release", err, "delete=1")

	held, err := other.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cc.reset()
	_, err = m.TryAcquire(ctx)
	if !errors.Is(err, recipe.ErrWouldBlock) {
		t.Errorf("TryAcquire while held = %v, want ErrWouldBlock", err)
	}
	ensWantOps(t, cc, "TryAcquire (held)", nil, "children=1 create=1 delete=1")
	if err := held.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

func ensWantOps(t *testing.T, cc *countingConn, what string, err error, want string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if got := cc.reset(); got != want {
		t.Errorf("%s made requests %q, want %q", what, got, want)
	}
}

// contention runs workers that share total acquisitions of the lock at
// dir; see TestMutex_EnsembleContention.
type contention struct {
	dir, data   string
	total       int64
	fencedEvery int64
	res         *resource
	onDone      func(n int64) // after each completed acquisition, if set

	claimed   atomic.Int64
	completed atomic.Int64
	fenced    atomic.Int64
	connLoss  atomic.Int64 // connection losses met and retried
	maxFenced atomic.Int64

	mu   sync.Mutex
	done []time.Time // completion times, for the longest gap
}

func newContention(t *testing.T, ctx context.Context, admin zkapi.Conn, root string, total int64) *contention {
	c := &contention{dir: root + "/lock", data: root + "/data", total: total, fencedEvery: 10, res: &resource{}}
	zktest.Create(t, ctx, admin, c.data)
	return c
}

// run starts a worker per Conn and returns their errors once all have
// ended. The first error cancels the others.
func (c *contention) run(ctx context.Context, conns []zkapi.Conn) []error {
	return locktest.RunAll(ctx, len(conns), func(ctx context.Context, i int) error { return c.worker(ctx, i, conns[i]) })
}

func (c *contention) worker(ctx context.Context, id int, conn zkapi.Conn) error {
	m, err := lock.New(conn, c.dir, lock.Options{ID: "w" + strconv.Itoa(id)})
	if err != nil {
		return err
	}
	for n := c.claimed.Add(1); n <= c.total; n = c.claimed.Add(1) {
		if err := c.turn(ctx, m, conn, n); err != nil {
			return fmt.Errorf("worker %d, acquisition %d: %w", id, n, err)
		}
	}
	return nil
}

func (c *contention) turn(ctx context.Context, m *lock.Mutex, conn zkapi.Conn, n int64) error {
	lease, err := locktest.RetryLoss(ctx, &c.connLoss, m.Acquire)
	if err != nil {
		return fmt.Errorf("acquire: %w", err)
	}
	c.res.enter()
	err = c.critical(ctx, lease, conn, n)
	c.res.exit()
	if rerr := lease.Release(ctx); rerr != nil {
		err = errors.Join(err, fmt.Errorf("release: %w", rerr))
	}
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.done = append(c.done, time.Now())
	c.mu.Unlock()
	if done := c.completed.Add(1); c.onDone != nil {
		c.onDone(done)
	}
	return nil
}

func (c *contention) critical(ctx context.Context, lease recipe.Lease, conn zkapi.Conn, n int64) error {
	if err := lease.Check(); err != nil {
		return fmt.Errorf("Check inside the critical section: %w", err)
	}
	tok, err := locktest.RetryLoss(ctx, &c.connLoss, lease.Token)
	if err != nil {
		return fmt.Errorf("Token: %w", err)
	}
	_ = c.res.write(lease.Node(), tok) // the resource keeps its refusals
	if n%c.fencedEvery == 0 {
		return c.fencedWrite(ctx, lease, conn, tok)
	}
	return nil
}

// fencedWrite writes tok to the data node (locktest.FencedSet) and records
// it as the last token fenced so far.
func (c *contention) fencedWrite(ctx context.Context, lease recipe.Lease, conn zkapi.Conn, tok int64) error {
	if err := locktest.FencedSet(ctx, conn, lease.Fenced, c.data, tok, &c.connLoss); err != nil {
		return err
	}
	c.fenced.Add(1)
	locktest.StoreMax(&c.maxFenced, tok)
	return nil
}

// check reports overlap, fencing refusals, a wrong count, a data node that
// does not hold the last fenced token, and lock nodes left while the
// sessions are still open.
func (c *contention) check(t *testing.T, ctx context.Context, admin zkapi.Conn) {
	t.Helper()
	if n := c.res.overlaps.Load(); n != 0 {
		t.Errorf("%d critical sections overlapped another", n)
	}
	if r := c.res.rejections(); len(r) != 0 {
		t.Errorf("fencing resource refused %d writes: %v", len(r), r)
	}
	if got := c.completed.Load(); got != c.total {
		t.Errorf("%d acquisitions completed, want %d", got, c.total)
	}
	if got, want := locktest.ReadInt(t, ctx, admin, c.data), c.maxFenced.Load(); got != want {
		t.Errorf("%s holds token %#x, want the last fenced one %#x", c.data, got, want)
	}
	locktest.NoChildren(t, ctx, admin, c.dir, "with every lease released")
}

func (c *contention) longestGap() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var gap time.Duration
	for i := 1; i < len(c.done); i++ {
		gap = max(gap, c.done[i].Sub(c.done[i-1]))
	}
	return gap
}

var errStaleToken = errors.New("resource: fencing token not above the last accepted one")

// resource stands for what a lock protects: it counts the holders inside
// (overlap if ever more than one) and, like a fencing storage service,
// accepts a write only with a token strictly above the last it accepted.
type resource struct {
	holders  atomic.Int32
	overlaps atomic.Int32

	mu      sync.Mutex
	last    int64
	refused []string
}

func (r *resource) enter() {
	if r.holders.Add(1) != 1 {
		r.overlaps.Add(1)
	}
}

func (r *resource) exit() { r.holders.Add(-1) }

func (r *resource) write(who string, token int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if token <= r.last {
		err := fmt.Errorf("%w: %s wrote %#x after %#x", errStaleToken, who, token, r.last)
		r.refused = append(r.refused, err.Error())
		return err
	}
	r.last = token
	return nil
}

func (r *resource) rejections() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.refused)
}

// TestMutex_KazooInterop runs scripts/kazoo-lock.py, a Python client using
// kazoo's Lock (python3-kazoo 2.8), against lock.Mutex on the same path.
// Stock kazoo names its nodes "<uuid>__lock__<seq>", which lock.Mutex does
// not count (it counts only "lock-<guid>-<seq>"), and kazoo counts only
// "__lock__" names as contenders: the two do not exclude each other at all,
// whichever holds first. With the script's --zksim-names (a kazoo Lock
// subclass whose nodes are "lock-<uuid>-<seq>" and which counts every such
// child) they exclude each other and hand the lock over in both
// directions. docs/interop-kazoo.md explains.
func TestMutex_KazooInterop(t *testing.T) {
	c := zktest.Serving(t, zktest.Ensemble(t))
	py := zktest.KazooPython(t)
	script, err := filepath.Abs(filepath.Join("..", "scripts", "kazoo-lock.py"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := zktest.Context(t, 2*time.Minute)
	admin := zktest.Dial(t, ctx, c.Addrs, gozk.Config{})
	root := zktest.Root(t, ctx, admin, "/zksim-lock-test-")
	kz := &kazooRunner{py: py, script: script, hosts: strings.Join(c.Addrs, ",")}

	t.Run("stock", func(t *testing.T) {
		dir := root + "/stock"
		m := ensMutex(t, zktest.Dial(t, ctx, c.Addrs, gozk.Config{}), dir, "gozk")
		p := kz.start(t, ctx, dir)
		node := p.Expect(t, ctx, `^acquired [0-9a-f]{32}__lock__\d{10}$`)
		l, err := m.TryAcquire(ctx)
		if err != nil {
			t.Fatalf("lock.Mutex TryAcquire while kazoo holds %s = %v; stock kazoo nodes were expected to be invisible to it", node, err)
		}
		t.Logf("kazoo holds %s and lock.Mutex holds %s at once", strings.TrimPrefix(node, "acquired "), path.Base(l.Node()))
		p.release(t, ctx)
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}

		l, err = m.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		p = kz.start(t, ctx, dir, "--try")
		p.Expect(t, ctx, `^acquired [0-9a-f]{32}__lock__\d{10}$`) // not "busy"
		p.release(t, ctx)
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
		locktest.NoChildren(t, ctx, admin, dir, "after both released")
	})

	t.Run("zksim-names", func(t *testing.T) {
		dir := root + "/compatible"
		m := ensMutex(t, zktest.Dial(t, ctx, c.Addrs, gozk.Config{}), dir, "gozk")
		const kazooNode = `^acquired lock-[0-9a-f]{32}-\d{10}$`
		// kazoo first: lock.Mutex must wait, and gets the lock when kazoo
		// releases.
		p := kz.start(t, ctx, dir, "--zksim-names")
		p.Expect(t, ctx, kazooNode)
		if _, err := m.TryAcquire(ctx); !errors.Is(err, recipe.ErrWouldBlock) {
			t.Fatalf("lock.Mutex TryAcquire while kazoo holds = %v, want ErrWouldBlock", err)
		}
		waiting := zktest.Go(t, ctx, m.Acquire)
		if err := locktest.WaitChildren(ctx, admin, dir, 2); err != nil {
			t.Fatal(err)
		}
		waiting.Pending(t, "lock.Mutex: Acquire behind kazoo")
		p.release(t, ctx)
		l := waiting.Receive(t, ctx, "lock.Mutex: Acquire after kazoo released")

		// lock.Mutex first: kazoo must wait, and gets the lock when it
		// releases.
		p = kz.start(t, ctx, dir, "--zksim-names", "--try")
		p.Expect(t, ctx, `^busy$`)
		p.Wait(t)
		p = kz.start(t, ctx, dir, "--zksim-names")
		if err := locktest.WaitChildren(ctx, admin, dir, 2); err != nil {
			t.Fatal(err)
		}
		p.Pending(t, "kazoo behind lock.Mutex")
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
		p.Expect(t, ctx, kazooNode)
		if _, err := m.TryAcquire(ctx); !errors.Is(err, recipe.ErrWouldBlock) {
			t.Fatalf("lock.Mutex TryAcquire after kazoo took over = %v, want ErrWouldBlock", err)
		}
		p.release(t, ctx)
		locktest.NoChildren(t, ctx, admin, dir, "after both released")
	})
}

type kazooRunner struct {
	py, script, hosts string
}

// kazooProc is one run of scripts/kazoo-lock.py.
type kazooProc struct{ *zktest.Script }

func (k *kazooRunner) start(t *testing.T, ctx context.Context, dir string, args ...string) kazooProc {
	t.Helper()
	args = append([]string{k.script, "--hosts", k.hosts, "--path", dir, "--timeout", "40"}, args...)
	p := kazooProc{zktest.StartScript(t, ctx, "", k.py, args...)}
	p.Expect(t, ctx, `^session 0x[0-9a-f]+$`)
	return p
}

// release tells a holding script to release and waits for it to end.
func (p kazooProc) release(t *testing.T, ctx context.Context) {
	t.Helper()
	p.Send(t, "release")
	p.Expect(t, ctx, `^released$`)
	p.Wait(t)
}

// ensAllUp waits until every server of c runs and a leader serves: another
// test may have killed one, and killing the leader of a degraded ensemble
// would leave it without quorum.
func ensAllUp(t *testing.T, ctx context.Context, c *zktest.Cluster) {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		var down []int
		for i := 1; i <= len(c.Addrs); i++ {
			if _, err := c.PID(i); err != nil {
				down = append(down, i)
			}
		}
		if len(down) == 0 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("servers %v of %s not running: %v", down, c.Dir, ctx.Err())
		case <-tick.C:
		}
	}
	if _, err := c.WaitLeader(ctx); err != nil {
		t.Fatal(err)
	}
}

func ensMutex(t testing.TB, conn zkapi.Conn, dir, id string) *lock.Mutex {
	t.Helper()
	m, err := lock.New(conn, dir, lock.Options{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
