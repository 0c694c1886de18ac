package election_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/zksim/zksim/election"
	"github.com/zksim/zksim/expire"
	"github.com/zksim/zksim/internal/locktest"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// These tests run the election on real servers (see package internal/zktest for
// the environment variables; they skip without them). Each candidate has
// a session of its own, as separate processes would.

// TestElection_RealContention: 4 sessions share 40 leaderships on a
// standalone server and on the 3-node ensemble (see realContention). The
// directory ends empty.
func TestElection_RealContention(t *testing.T) {
	t.Run("standalone", func(t *testing.T) { testRealContention(t, zktest.Standalone(t)) })
	t.Run("ensemble", func(t *testing.T) { testRealContention(t, zktest.Serving(t, zktest.Ensemble(t)).Addrs) })
}

func testRealContention(t *testing.T, addrs []string) {
	ctx := zktest.Context(t, 2*time.Minute)
	admin := zktest.Dial(t, ctx, addrs, gozk.Config{})
	root := zktest.Root(t, ctx, admin, "/zksim-election-test-")
	conns := zktest.DialN(t, ctx, addrs, 4, gozk.Config{})
	run := newRealContention(t, ctx, admin, root, 40)
	start := time.Now()
	for _, err := range run.run(ctx, conns) {
		t.Error(err)
	}
	elapsed := time.Since(start)
	t.Logf("%d leaderships by %d sessions in %v (%v each); %d connection losses retried",
		run.granted, len(conns), elapsed, elapsed/time.Duration(max(run.granted, 1)), run.connLoss)
	zktest.CloseAll(t, conns)
	locktest.NoChildren(t, ctx, admin, run.dir, "after every session closed")
}

// TestElection_EnsembleLeaderKill runs the contention on a 3-server
// ensemble and SIGKILLs the ensemble's leader once in the middle: requests
// fail with connection loss while the servers elect; the candidates ride
// through it. Terms and fencing must hold throughout, and nothing may be
// left behind. The killed server is restarted afterwards.
func TestElection_EnsembleLeaderKill(t *testing.T) {
	c := zktest.Serving(t, zktest.EnsembleExclusive(t))
	if len(c.Addrs) < 3 {
		t.Skipf("%s has %d servers; a leader kill needs 3 or more", c.Dir, len(c.Addrs))
	}
	ctx := zktest.Context(t, 4*time.Minute)
	admin := zktest.Dial(t, ctx, c.Addrs, gozk.Config{SessionTimeout: 8 * time.Second})
	root := zktest.Root(t, ctx, admin, "/zksim-election-test-")
	// Sessions survive the servers' election with room to spare.
	conns := zktest.DialN(t, ctx, c.Addrs, 4, gozk.Config{SessionTimeout: 8 * time.Second})
	run := newRealContention(t, ctx, admin, root, 80)
	const killAt = 20
	mid := make(chan struct{})
	run.onGrant = func(n int) {
		if n == killAt {
			close(mid)
		}
	}
	var errs []error
	runDone := make(chan struct{})
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
	if err := c.Kill(old); err != nil {
		t.Fatalf("Kill(%d): %v", old, err)
	}
	if _, err := c.WaitLeader(ctx); err != nil {
		t.Fatalf("WaitLeader after killing %d: %v", old, err)
	}
	<-runDone
	for _, err := range errs {
		t.Error(err)
	}
	t.Logf("killed server %d after %d leaderships; %d leaderships, %d connection losses retried",
		old, killAt, run.granted, run.connLoss)
	zktest.CloseAll(t, conns)
	locktest.NoChildren(t, ctx, admin, run.dir, "after every session closed")
	if err := c.Restart(old); err != nil {
		t.Fatalf("Restart(%d): %v", old, err)
	}
}

// realContention is sessions taking turns to lead one election. Each
// grant must carry a term above the last and find every earlier leader
// already resigned (Check fails); each leader makes a version-checked
// fenced write of its term, which must land over a lower one.
type realContention struct {
	t          *testing.T
	dir, fence string
	total      int
	onGrant    func(n int) // called with the number of grants so far

	mu       sync.Mutex
	granted  int
	connLoss int
	lastTerm int64
	active   map[*election.Leadership]string
}

func newRealContention(t *testing.T, ctx context.Context, admin zkapi.Conn, root string, total int) *realContention {
	r := &realContention{t: t, dir: root + "/election", fence: root + "/fence", total: total,
		active: map[*election.Leadership]string{}}
	if _, err := admin.Create(ctx, r.fence, []byte("0"), zkapi.Persistent); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *realContention) run(ctx context.Context, conns []zkapi.Conn) []error {
	return locktest.RunAll(ctx, len(conns), func(ctx context.Context, i int) error {
		e, err := election.New(conns[i], r.dir, election.Options{ID: "c" + strconv.Itoa(i)})
		if err != nil {
			return err
		}
		for {
			r.mu.Lock()
			enough := r.granted >= r.total
			r.mu.Unlock()
			if enough {
				return nil
			}
			l, err := e.Campaign(ctx)
			if err != nil {
				return err
			}
			r.grant(e.ID(), l)
			if err := r.lead(ctx, conns[i], l); err != nil {
				return err
			}
			if err := l.Release(ctx); err != nil {
				return err
			}
			r.mu.Lock()
			delete(r.active, l)
			r.mu.Unlock()
		}
	})
}

func (r *realContention) grant(who string, l *election.Leadership) {
	r.mu.Lock()
	if l.Term() <= r.lastTerm {
		r.t.Errorf("%s leads with term %d, not above %d", who, l.Term(), r.lastTerm)
	}
	for o, other := range r.active {
		if o.Check() == nil {
			r.t.Errorf("%s leads while %s does", who, other)
		}
	}
	r.lastTerm = l.Term()
	r.granted++
	r.active[l] = who
	n := r.granted
	r.mu.Unlock()
	if r.onGrant != nil {
		r.onGrant(n)
	}
}

// lead reads the fence and writes the leader's term over it, fenced and
// version-checked, retrying through connection loss (a write whose reply
// was lost may have landed: the version check then refuses the retry,
// which is read again).
func (r *realContention) lead(ctx context.Context, conn zkapi.Conn, l *election.Leadership) error {
	for {
		data, st, err := conn.Get(ctx, r.fence)
		if err == nil {
			prev, _ := strconv.ParseInt(string(data), 10, 64)
			if prev == l.Term() {
				return nil // an earlier try landed
			}
			if prev > l.Term() {
				r.t.Errorf("fence holds term %d before the leader of term %d writes", prev, l.Term())
			}
			_, err = l.Fenced(ctx, zkapi.SetOp{Path: r.fence, Data: locktest.FormatInt(l.Term()), Version: st.Version})
			if err == nil {
				return nil
			}
		}
		if !errors.Is(err, zkapi.ErrConnectionLoss) && !errors.Is(err, zkapi.ErrBadVersion) {
			return err
		}
		r.mu.Lock()
		r.connLoss++
		r.mu.Unlock()
		if err := awaitConnected(ctx, conn); err != nil {
			return err
		}
	}
}

// awaitConnected returns once conn is connected again.
func awaitConnected(ctx context.Context, conn zkapi.Conn) error {
	for {
		s := conn.Session()
		if s.State == zkapi.StateConnected {
			return nil
		}
		if _, err := conn.WaitSession(ctx, s.Seq); err != nil {
			return err
		}
	}
}

// TestLeadership_RealSessionExpired: the leader's session is expired by
// the server (expire.Capture.Kill) while a second candidate waits, on the
// standalone server and on the ensemble. The old leader's Wait and Check
// report ErrLost, the second leads with a higher term, the old leader's
// fenced write is refused and its Release reports ErrLost.
func TestLeadership_RealSessionExpired(t *testing.T) {
	t.Run("standalone", func(t *testing.T) { testRealSessionExpired(t, zktest.Standalone(t)) })
	t.Run("ensemble", func(t *testing.T) { testRealSessionExpired(t, zktest.Serving(t, zktest.Ensemble(t)).Addrs) })
}

func testRealSessionExpired(t *testing.T, addrs []string) {
	ctx := zktest.Context(t, time.Minute)
	admin := zktest.Dial(t, ctx, addrs, gozk.Config{})
	root := zktest.Root(t, ctx, admin, "/zksim-election-test-")
	dir, data := root+"/election", root+"/data"
	zktest.Create(t, ctx, admin, data)
	var capture expire.Capture
	connA := zktest.Dial(t, ctx, addrs, gozk.Config{SessionTimeout: 10 * time.Second, Dialer: capture.Dial})
	connB := zktest.Dial(t, ctx, addrs, gozk.Config{})
	ea, err := election.New(connA, dir, election.Options{ID: "stale"})
	if err != nil {
		t.Fatal(err)
	}
	eb, err := election.New(connB, dir, election.Options{ID: "next"})
	if err != nil {
		t.Fatal(err)
	}
	la, err := ea.Campaign(ctx)
	if err != nil {
		t.Fatalf("A: Campaign: %v", err)
	}
	waiting := zktest.Go(t, ctx, eb.Campaign)
	if err := locktest.WaitChildren(ctx, admin, dir, 2); err != nil {
		t.Fatal(err)
	}
	if err := capture.Kill(ctx, la.Session()); err != nil {
		t.Fatalf("Kill(%#x): %v", la.Session(), err)
	}
	if err := la.Wait(ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("A: Wait after the kill = %v, want ErrLost", err)
	}
	if err := la.Check(); !errors.Is(err, recipe.ErrLost) {
		t.Errorf("A: Check after the kill = %v, want ErrLost", err)
	}
	lb := waiting.Receive(t, ctx, "B: Campaign")
	if lb.Term() <= la.Term() {
		t.Errorf("B's term %d not above A's %d", lb.Term(), la.Term())
	}
	if _, err := la.Fenced(ctx, zkapi.SetOp{Path: data, Data: []byte("stale"), Version: zkapi.AnyVersion}); !errors.Is(err, recipe.ErrLost) {
		t.Errorf("A: Fenced after the kill = %v, want ErrLost", err)
	}
	if _, err := lb.Fenced(ctx, zkapi.SetOp{Path: data, Data: []byte("fresh"), Version: zkapi.AnyVersion}); err != nil {
		t.Errorf("B: Fenced: %v", err)
	}
	if err := la.Release(ctx); !errors.Is(err, recipe.ErrLost) {
		t.Errorf("A: Release after the kill = %v, want ErrLost", err)
	}
	if err := lb.Release(ctx); err != nil {
		t.Errorf("B: Release: %v", err)
	}
	locktest.NoChildren(t, ctx, admin, dir, "after both resigned")
}
