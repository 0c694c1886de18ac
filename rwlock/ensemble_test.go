package rwlock_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path"
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
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/rwlock"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// These tests run rwlock.RWMutex on a real 3-node ensemble (see package
// internal/zktest for the environment variables; they skip without them). Each
// client has a session of its own, as separate processes would.

// TestRWMutex_EnsembleContention: 8 sessions share 200 acquisitions of one
// read/write lock, one in three for writing. An in-process resource checks
// every entry: a writer enters only when nobody is inside, a reader only
// when no writer is; a writer's fencing token must exceed every earlier
// holder's and a reader's the last writer's. Every third writer makes a
// real fenced write of a data node (Lease.Fenced) at the version it read;
// readers read it too, and both must find an earlier writer's token there.
// Once all have released, and again once all sessions have closed, the
// lock directory is empty.
func TestRWMutex_EnsembleContention(t *testing.T) {
	c := zktest.Serving(t, zktest.Ensemble(t))
	ctx := zktest.Context(t, 3*time.Minute)
	admin := zktest.Dial(t, ctx, c.Addrs, gozk.Config{})
	root := zktest.Root(t, ctx, admin, "/zksim-rwlock-test-")
	conns := zktest.DialN(t, ctx, c.Addrs, 8, gozk.Config{})
	run := &rwContention{dir: root + "/lock", data: root + "/data", total: 200, res: &rwResource{}}
	zktest.Create(t, ctx, admin, run.data)
	start := time.Now()
	errs := run.run(ctx, conns)
	elapsed := time.Since(start)
	for _, err := range errs {
		t.Error(err)
	}
	if v := run.res.problems(); len(v) != 0 {
		t.Errorf("%d exclusion or fencing violations:\n%s", len(v), strings.Join(v, "\n"))
	}
	if got := run.completed.Load(); got != run.total {
		t.Errorf("%d acquisitions completed, want %d", got, run.total)
	}
	if got, want := locktest.ReadInt(t, ctx, admin, run.data), run.maxFenced.Load(); got != want {
		t.Errorf("%s holds token %#x, want the last fenced one %#x", run.data, got, want)
	}
	locktest.NoChildren(t, ctx, admin, run.dir, "with every lease released")
	t.Logf("%d reads and %d writes by %d sessions in %v; up to %d readers at once; %d fenced writes; %d connection losses retried",
		run.reads.Load(), run.writes.Load(), len(conns), elapsed, run.res.peakReaders(), run.fenced.Load(), run.connLoss.Load())
	zktest.CloseAll(t, conns)
	locktest.NoChildren(t, ctx, admin, run.dir, "after every session closed")
}

// TestRWMutex_EnsembleDowngradeWithWaitingWriter is CURATOR-621
// (docs/zk-semantics.md bug scenario 9). W1 holds the write lock; two readers
// queue behind it, then a writer W2, then a reader R3. When W1 downgrades,
// the two readers queued between it and W2 get in at once, alongside W1,
// now a reader; W2 must not get in until W1 releases, even once the two
// readers have left and W2 waits on W1's node itself; R3 stays behind W2.
// The test follows each waiter through the servers' watch lists (the wchc
// four-letter command), so every "still waiting" is checked at the moment
// the waiter has chosen whom to wait for.
func TestRWMutex_EnsembleDowngradeWithWaitingWriter(t *testing.T) {
	c := zktest.Serving(t, zktest.Ensemble(t))
	ctx := zktest.Context(t, 2*time.Minute)
	admin := zktest.Dial(t, ctx, c.Addrs, gozk.Config{})
	root := zktest.Root(t, ctx, admin, "/zksim-rwlock-test-")
	dir, data := root+"/lock", root+"/data"
	zktest.Create(t, ctx, admin, data)
	res := &rwResource{}
	type client struct {
		conn zkapi.Conn
		rw   *rwlock.RWMutex
	}
	clients := map[string]client{}
	for _, who := range []string{"W1", "R1", "R2", "W2", "R3"} {
		conn := zktest.Dial(t, ctx, c.Addrs, gozk.Config{})
		clients[who] = client{conn, ensRW(t, conn, dir, who)}
	}
	watching := func(who string, match func(string) bool, what string) string {
		t.Helper()
		return ensWaitWatching(t, ctx, c.Addrs, clients[who].conn.Session().ID, dir, match, who+" watching "+what)
	}

	w1, err := clients["W1"].rw.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res.enter("W1", true, zktest.Token(t, ctx, w1, "W1"))
	r1 := ensAcquireAsync(t, ctx, res, "R1", false, clients["R1"].rw.AcquireRead)
	watching("R1", isNode(w1.Node()), "W1")
	r2 := ensAcquireAsync(t, ctx, res, "R2", false, clients["R2"].rw.AcquireRead)
	watching("R2", isNode(w1.Node()), "W1")
	w2 := ensAcquireAsync(t, ctx, res, "W2", true, clients["W2"].rw.Acquire)
	watching("W2", hasPrefix(dir+"/read-"), "a reader")
	r3 := ensAcquireAsync(t, ctx, res, "R3", false, clients["R3"].rw.AcquireRead)
	watching("R3", func(p string) bool { return strings.HasPrefix(p, dir+"/write-") && p != w1.Node() }, "W2")
	r1.Pending(t, "R1 behind W1")
	r2.Pending(t, "R2 behind W1")
	w2.Pending(t, "W2 behind the readers")
	r3.Pending(t, "R3 behind W2")

	// W1 writes no more once it asks to downgrade, and the readers may be
	// granted as soon as the server applies the downgrade, before W1 has
	// its reply: record it as a reader first.
	res.downgrade("W1")
	if err := w1.Downgrade(ctx); err != nil {
		t.Fatalf("W1: Downgrade: %v", err)
	}
	if _, err := clients["W1"].rw.Acquire(ctx); !errors.Is(err, rwlock.ErrUpgrade) {
		t.Errorf("write Acquire on a handle holding a read lease = %v, want ErrUpgrade", err)
	}
	lr1 := r1.Receive(t, ctx, "R1 after the downgrade")
	lr2 := r2.Receive(t, ctx, "R2 after the downgrade")
	if n := res.peakReaders(); n != 3 {
		t.Errorf("%d readers inside at once after the downgrade, want 3 (W1, R1, R2)", n)
	}
	w2.Pending(t, "W2 behind the downgraded W1 and the readers")
	for who, l := range map[string]*rwlock.Lease{"R1": lr1, "R2": lr2} {
		res.exit(who, false)
		if err := l.Release(ctx); err != nil {
			t.Fatalf("%s: Release: %v", who, err)
		}
	}
	watching("W2", isNode(w1.Node()), "the downgraded W1")
	w2.Pending(t, "W2 behind the downgraded W1")
	r3.Pending(t, "R3 behind W2")

	res.exit("W1", false)
	if err := w1.Release(ctx); err != nil {
		t.Fatalf("W1: Release: %v", err)
	}
	lw2 := w2.Receive(t, ctx, "W2 after W1 released")
	tok := zktest.Token(t, ctx, lw2, "W2")
	if _, err := lw2.Fenced(ctx, zkapi.SetOp{Path: data, Data: locktest.FormatInt(tok), Version: zkapi.AnyVersion}); err != nil {
		t.Errorf("W2: Fenced: %v", err)
	}
	r3.Pending(t, "R3 behind W2")
	res.exit("W2", true)
	if err := lw2.Release(ctx); err != nil {
		t.Fatal(err)
	}
	lr3 := r3.Receive(t, ctx, "R3 after W2 released")
	res.exit("R3", false)
	if err := lr3.Release(ctx); err != nil {
		t.Fatal(err)
	}

	if v := res.problems(); len(v) != 0 {
		t.Errorf("violations:\n%s", strings.Join(v, "\n"))
	}
	got := strings.Join(res.order(), " ")
	if got != "W1 R1 R2 W2 R3" && got != "W1 R2 R1 W2 R3" {
		t.Errorf("grant order %q, want W1, then R1 and R2, then W2, then R3", got)
	}
	locktest.NoChildren(t, ctx, admin, dir, "after all released")
}

// TestRWMutex_EnsembleWriterExpired is bug scenario 3 for the read/write
// lock: the writer's session is expired by the server while a reader
// waits. The writer is told (Wait, Check: recipe.ErrLost), the reader gets in
// with a larger token, and the stale writer's fenced write and Release
// report recipe.ErrLost.
func TestRWMutex_EnsembleWriterExpired(t *testing.T) {
	c := zktest.Serving(t, zktest.Ensemble(t))
	ctx := zktest.Context(t, time.Minute)
	admin := zktest.Dial(t, ctx, c.Addrs, gozk.Config{})
	root := zktest.Root(t, ctx, admin, "/zksim-rwlock-test-")
	dir, data := root+"/lock", root+"/data"
	zktest.Create(t, ctx, admin, data)
	var capture expire.Capture
	// The longest timeout the servers grant: only the kill expires it.
	wconn := zktest.Dial(t, ctx, c.Addrs, gozk.Config{SessionTimeout: 10 * time.Second, Dialer: capture.Dial})
	rconn := zktest.Dial(t, ctx, c.Addrs, gozk.Config{})
	res := &rwResource{}
	w, err := ensRW(t, wconn, dir, "W").Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// W is not entered in res: once its session is gone, the reader may
	// get in before W's client hears of it; that overlap is what fencing
	// is for, and the tokens are compared directly below.
	tokW := zktest.Token(t, ctx, w, "W")
	r := ensAcquireAsync(t, ctx, res, "R", false, ensRW(t, rconn, dir, "R").AcquireRead)
	ensWaitWatching(t, ctx, c.Addrs, rconn.Session().ID, dir, isNode(w.Node()), "R watching W")

	if err := capture.Kill(ctx, wconn.Session().ID); err != nil {
		t.Fatal(err)
	}
	if err := w.Wait(ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("W: Wait after the kill = %v, want recipe.ErrLost", err)
	}
	if err := w.Check(); !errors.Is(err, recipe.ErrLost) {
		t.Errorf("W: Check after the kill = %v, want recipe.ErrLost", err)
	}
	lr := r.Receive(t, ctx, "R after W's session expired")
	if tokR := zktest.Token(t, ctx, lr, "R"); tokR <= tokW {
		t.Errorf("R's token %#x is not above the expired writer's %#x", tokR, tokW)
	}
	if _, err := w.Fenced(ctx, zkapi.SetOp{Path: data, Data: []byte("stale"), Version: zkapi.AnyVersion}); !errors.Is(err, recipe.ErrLost) {
		t.Errorf("W: Fenced after the kill = %v, want recipe.ErrLost", err)
	}
	if got := locktest.ReadInt(t, ctx, admin, data); got != 0 {
		t.Errorf("data node holds %d after the stale writer's attempt, want it untouched", got)
	}
	if err := w.Release(ctx); !errors.Is(err, recipe.ErrLost) {
		t.Errorf("W: Release after the kill = %v, want recipe.ErrLost", err)
	}
	res.exit("R", false)
	if err := lr.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if v := res.problems(); len(v) != 0 {
		t.Errorf("violations:\n%s", strings.Join(v, "\n"))
	}
	locktest.NoChildren(t, ctx, admin, dir, "after both released")
}

func isNode(p string) func(string) bool { return func(s string) bool { return s == p } }

func hasPrefix(prefix string) func(string) bool {
	return func(s string) bool { return strings.HasPrefix(s, prefix) }
}

// rwContention runs workers that share total acquisitions of the lock at
// dir, one in three for writing.
type rwContention struct {
	dir, data string
	total     int64
	res       *rwResource

	claimed   atomic.Int64
	completed atomic.Int64
	reads     atomic.Int64
	writes    atomic.Int64
	fenced    atomic.Int64
	connLoss  atomic.Int64
	maxFenced atomic.Int64
}

func (c *rwContention) run(ctx context.Context, conns []zkapi.Conn) []error {
	return locktest.RunAll(ctx, len(conns), func(ctx context.Context, i int) error { return c.worker(ctx, i, conns[i]) })
}

func (c *rwContention) worker(ctx context.Context, id int, conn zkapi.Conn) error {
	rw, err := rwlock.New(conn, c.dir, rwlock.Options{ID: "w" + strconv.Itoa(id)})
	if err != nil {
		return err
	}
	for n := c.claimed.Add(1); n <= c.total; n = c.claimed.Add(1) {
		if err := c.turn(ctx, rw, conn, n); err != nil {
			return fmt.Errorf("worker %d, acquisition %d: %w", id, n, err)
		}
	}
	return nil
}

func (c *rwContention) turn(ctx context.Context, rw *rwlock.RWMutex, conn zkapi.Conn, n int64) error {
	write := n%3 == 0
	acquire := rw.AcquireRead
	if write {
		acquire = rw.Acquire
	}
	lease, err := locktest.RetryLoss(ctx, &c.connLoss, acquire)
	if err != nil {
		return fmt.Errorf("acquire (write %v): %w", write, err)
	}
	err = c.critical(ctx, lease, conn, n, write)
	if rerr := lease.Release(ctx); rerr != nil {
		err = errors.Join(err, fmt.Errorf("release: %w", rerr))
	}
	if err != nil {
		return err
	}
	c.completed.Add(1)
	if write {
		c.writes.Add(1)
	} else {
		c.reads.Add(1)
	}
	return nil
}

func (c *rwContention) critical(ctx context.Context, lease *rwlock.Lease, conn zkapi.Conn, n int64, write bool) error {
	tok, err := locktest.RetryLoss(ctx, &c.connLoss, lease.Token)
	if err != nil {
		return fmt.Errorf("Token: %w", err)
	}
	who := path.Base(lease.Node())
	c.res.enter(who, write, tok)
	defer c.res.exit(who, write)
	if err := lease.Check(); err != nil {
		return fmt.Errorf("Check inside the critical section: %w", err)
	}
	return c.useData(ctx, lease, conn, tok, write && n%9 == 0)
}

// useData reads the data node, which must hold an earlier writer's token,
// or if asked writes tok there (locktest.FencedSet) and records it as the
// last token fenced so far.
func (c *rwContention) useData(ctx context.Context, lease *rwlock.Lease, conn zkapi.Conn, tok int64, fence bool) error {
	if fence {
		if err := locktest.FencedSet(ctx, conn, lease.Fenced, c.data, tok, &c.connLoss); err != nil {
			return err
		}
		c.fenced.Add(1)
		locktest.StoreMax(&c.maxFenced, tok)
		return nil
	}
	prev, _, err := locktest.GetInt(ctx, conn, c.data, &c.connLoss)
	if err != nil {
		return err
	}
	if prev >= tok {
		return fmt.Errorf("%s holds token %#x, not below the holder's %#x", c.data, prev, tok)
	}
	return nil
}

// rwResource stands for what a read/write lock protects. It records every
// entry and exit and the violations of: writers alone inside, no reader
// alongside a writer, a writer's token above every earlier holder's, a
// reader's token above the last writer's.
type rwResource struct {
	mu         sync.Mutex
	readers    int
	writers    int
	maxReaders int
	lastWrite  int64 // token of the last writer to enter
	maxToken   int64 // greatest token of any holder so far
	bad        []string
	grants     []string
}

func (r *rwResource) enter(who string, write bool, tok int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.grants = append(r.grants, who)
	if write {
		if r.readers > 0 || r.writers > 0 {
			r.bad = append(r.bad, fmt.Sprintf("writer %s entered with %d readers and %d writers inside", who, r.readers, r.writers))
		}
		if tok <= r.maxToken {
			r.bad = append(r.bad, fmt.Sprintf("writer %s has token %#x, not above the greatest so far %#x", who, tok, r.maxToken))
		}
		r.writers++
		r.lastWrite = tok
	} else {
		if r.writers > 0 {
			r.bad = append(r.bad, fmt.Sprintf("reader %s entered with %d writers inside", who, r.writers))
		}
		if tok <= r.lastWrite {
			r.bad = append(r.bad, fmt.Sprintf("reader %s has token %#x, not above the last writer's %#x", who, tok, r.lastWrite))
		}
		r.readers++
		r.maxReaders = max(r.maxReaders, r.readers)
	}
	r.maxToken = max(r.maxToken, tok)
}

func (r *rwResource) exit(who string, write bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if write {
		r.writers--
	} else {
		r.readers--
	}
}

// downgrade turns a writer inside into a reader.
func (r *rwResource) downgrade(who string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writers--
	r.readers++
	r.maxReaders = max(r.maxReaders, r.readers)
}

func (r *rwResource) problems() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.bad)
}

func (r *rwResource) order() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.grants)
}

func (r *rwResource) peakReaders() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.maxReaders
}

// ensAcquireAsync acquires on a goroutine (zktest.Go) and enters res as
// who once granted, so that res checks the entry at the moment of the
// grant, not when the test gets round to receiving it.
func ensAcquireAsync(t *testing.T, ctx context.Context, res *rwResource, who string, write bool, acquire func(context.Context) (*rwlock.Lease, error)) *zktest.Async[*rwlock.Lease] {
	return zktest.Go(t, ctx, func(ctx context.Context) (*rwlock.Lease, error) {
		l, err := acquire(ctx)
		if err != nil {
			return nil, err
		}
		tok, err := l.Token(ctx)
		if err != nil {
			return l, err
		}
		res.enter(who, write, tok)
		return l, nil
	})
}

// ensWaitWatching polls the servers' watch lists until session sid
// watches a node under dir that match accepts, and returns that node. A
// waiter's watch is not observable from the client side; the server's is.
func ensWaitWatching(t *testing.T, ctx context.Context, addrs []string, sid int64, dir string, match func(string) bool, what string) string {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		watches, err := ensWatches(addrs)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range watches[sid] {
			if strings.HasPrefix(p, dir+"/") && match(p) {
				return p
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: session %#x watches %v: %v", what, sid, watches[sid], ctx.Err())
		case <-tick.C:
		}
	}
}

// ensWatches returns the paths each session watches, from every server's
// wchc four-letter command ("0x<session>" lines, each followed by
// tab-indented paths). Servers that do not answer are passed over, unless
// none does.
func ensWatches(addrs []string) (map[int64][]string, error) {
	out := map[int64][]string{}
	var errs []error
	for _, a := range addrs {
		text, err := fourLetter(a, "wchc")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var sid int64
		for _, line := range strings.Split(text, "\n") {
			switch {
			case strings.HasPrefix(line, "0x"):
				id, err := strconv.ParseUint(line[2:], 16, 64)
				if err != nil {
					return nil, fmt.Errorf("wchc %s: %q: %w", a, line, err)
				}
				sid = int64(id)
			case strings.HasPrefix(line, "\t"):
				out[sid] = append(out[sid], strings.TrimSpace(line))
			}
		}
	}
	if len(errs) == len(addrs) {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

func fourLetter(addr, cmd string) (string, error) {
	conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(2 * time.Second)); err != nil {
		return "", err
	}
	if _, err := io.WriteString(conn, cmd); err != nil {
		return "", err
	}
	b, err := io.ReadAll(conn)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", cmd, addr, err)
	}
	return string(b), nil
}

func ensRW(t testing.TB, conn zkapi.Conn, dir, id string) *rwlock.RWMutex {
	t.Helper()
	rw, err := rwlock.New(conn, dir, rwlock.Options{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	return rw
}
