package harnesstest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/harness/harnesstest"
	"github.com/zksim/zksim/internal/longtest"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zoo"
)

// Planted bugs that only faults show: each is zksim's good recipe with
// one mistake of the kind users' issue trackers report, made in the
// conn the recipe is given (a wrapper, so that the diff is the
// mistake). With no faults every one of them passes.

// swallowLoss is a conn whose Delete reports a connection loss as done:
// the user's Release that returns nil on connection loss, leaving its
// node behind for a live session (kazoo #2, "session failure while
// holding lock"; the release half of CURATOR-315).
type swallowLoss struct{ zkapi.Conn }

func (c swallowLoss) Delete(ctx context.Context, path string, version int32) error {
	if err := c.Conn.Delete(ctx, path, version); !errors.Is(err, zkapi.ErrConnectionLoss) {
		return err
	}
	return nil
}

// recreate is a conn that retries a sequential create lost to a
// connection loss at once, without looking whether it was applied: a
// lost reply leaves a second node the recipe forgets (the lock of the
// recipes page before ZOOKEEPER-1262, go-zookeeper #229; the orphaned
// lease node of CURATOR-315 and CURATOR-335; a barrier that counts its
// member twice).
type recreate struct{ zkapi.Conn }

func (c recreate) Create(ctx context.Context, path string, data []byte, mode zkapi.CreateMode) (string, error) {
	for {
		p, err := c.Conn.Create(ctx, path, data, mode)
		if !errors.Is(err, zkapi.ErrConnectionLoss) || !proto.IsSequential(mode) {
			return p, err
		}
	}
}

// frozenSession is a conn that never tells the recipe its session
// changed: an election that ignores session expiry and abandonment,
// as Curator's LeaderLatch did before it reset on LOST.
type frozenSession struct {
	zkapi.Conn
	first *zkapi.Session
}

func (c *frozenSession) Session() zkapi.Session {
	if c.first == nil {
		s := c.Conn.Session()
		c.first = &s
	}
	return *c.first
}

// withConn makes a lock recipe use wrap(conn) for its conn.
func withConn(r recipe.Lock, name string, wrap func(zkapi.Conn) zkapi.Conn) recipe.Lock {
	r.Name = name
	type acquireFunc = func(context.Context, zkapi.Conn, string, string) (recipe.Held, error)
	for _, acquire := range []*acquireFunc{&r.Acquire, &r.AcquireRead} {
		if f := *acquire; f != nil {
			*acquire = func(ctx context.Context, c zkapi.Conn, dir, id string) (recipe.Held, error) {
				return f(ctx, wrap(c), dir, id)
			}
		}
	}
	return r
}

// userLock is a user's own lock: one ephemeral sequential node, the
// lowest holds, each waiter watches its predecessor; Release deletes
// the node and returns nil on a connection loss.
func userLock() recipe.Lock {
	return recipe.Lock{Name: "user-lock", Acquire: func(ctx context.Context, c zkapi.Conn, dir, id string) (recipe.Held, error) {
		c.Create(ctx, dir[:strings.LastIndex(dir, "/")], nil, zkapi.Persistent)
		c.Create(ctx, dir, nil, zkapi.Persistent)
		me, err := c.Create(ctx, dir+"/n-", []byte(id), zkapi.EphemeralSequential)
		if err != nil {
			return nil, err
		}
		h := userHeld{c, me}
		if err := h.wait(ctx, dir); err != nil {
			h.Release(context.WithoutCancel(ctx)) // gave up: leave the queue
			return nil, err
		}
		return h, nil
	}}
}

type userHeld struct {
	c    zkapi.Conn
	node string
}

// wait returns once h's node is the lowest in dir.
func (h userHeld) wait(ctx context.Context, dir string) error {
	for {
		kids, _, err := h.c.Children(ctx, dir)
		if err != nil {
			return err
		}
		prev := ""
		for _, k := range kids {
			if p := dir + "/" + k; p < h.node && p > prev {
				prev = p
			}
		}
		if prev == "" {
			return nil
		}
		_, ok, w, err := h.c.ExistsW(ctx, prev)
		if err != nil {
			return err
		}
		if ok {
			if _, err := w.Wait(ctx); err != nil {
				return err
			}
		}
	}
}

func (h userHeld) Release(ctx context.Context) error {
	if err := h.c.Delete(ctx, h.node, -1); err != nil && !errors.Is(err, zkapi.ErrConnectionLoss) {
		return err
	}
	return nil
}

// planted is a planted recipe and the class the check must find.
type planted struct {
	recipe recipe.Lock
	class  check.Class
}

func plantedLocks() []planted {
	swallow := func(c zkapi.Conn) zkapi.Conn { return swallowLoss{c} }
	again := func(c zkapi.Conn) zkapi.Conn { return recreate{c} }
	frozen := func(c zkapi.Conn) zkapi.Conn { return &frozenSession{Conn: c} }
	return []planted{
		{withConn(zoo.Mutex(), "planted/lock-release-swallows-loss", swallow), check.Deadlock},
		{withConn(zoo.RWMutex(), "planted/rwlock-recreates", again), check.Orphan},
		{withConn(zoo.Semaphore(2), "planted/semaphore-forgets-lost-create", again), check.Orphan},
		{withConn(zoo.Election(), "planted/election-ignores-expiry", frozen), check.MutualExclusion},
		{userLock(), check.Deadlock},
	}
}

// plantedBarrier is the double barrier that counts a member twice when
// its create's reply is lost.
func plantedBarrier() recipe.Barrier {
	b := zoo.DoubleBarrier()
	enter := b.Enter
	b.Name = "planted/barrier-counts-twice"
	b.Enter = func(ctx context.Context, c zkapi.Conn, dir, id string, n int) (recipe.Leaver, error) {
		return enter(ctx, recreate{c}, dir, id, n)
	}
	return b
}

// Check with zero options find every planted bug
// with its class, on every rapid seed tried; each bug needs a fault, so
// with sim.Faults{None: true} (checked with ZKSIM_LONG=1) none is found.
func TestCheck_FindsPlantedBugsThatNeedFaults(t *testing.T) {
	for _, p := range plantedLocks() {
		t.Run(p.recipe.Name, func(t *testing.T) {
			var at []int
			for _, seed := range powerSeeds(longtest.Enabled()) {
				n := harnesstest.Find(t, seed, harness.Lock(p.recipe, harness.Workload{}), harnesstest.Options{}, p.class)
				if n == 0 {
					t.Errorf("rapid seed %d: no %s in 100 checks", seed, p.class)
				}
				at = append(at, n)
			}
			t.Logf("%s first shown by schedule %v", p.class, at)
			if longtest.Enabled() {
				none := harnesstest.Options{Config: sim.Config{Faults: sim.Faults{None: true}}}
				if n := harnesstest.Find(t, rapidSeeds[0], harness.Lock(p.recipe, harness.Workload{}), none, p.class); n != 0 {
					t.Errorf("no faults, and schedule %d shows %s", n, p.class)
				}
			}
		})
	}
	t.Run("planted/barrier-counts-twice", func(t *testing.T) {
		var at []int
		for _, seed := range powerSeeds(longtest.Enabled()) {
			n := harnesstest.Find(t, seed, harness.Barrier(plantedBarrier(), harness.BarrierWorkload{}), harnesstest.Options{}, check.BarrierEnter)
			if n == 0 {
				t.Errorf("rapid seed %d: no %s in 100 checks", seed, check.BarrierEnter)
			}
			at = append(at, n)
		}
		t.Logf("%s first shown by schedule %v", check.BarrierEnter, at)
		if longtest.Enabled() {
			none := harnesstest.Options{Config: sim.Config{Faults: sim.Faults{None: true}}}
			if n := harnesstest.Find(t, rapidSeeds[0], harness.Barrier(plantedBarrier(), harness.BarrierWorkload{}), none, check.BarrierEnter); n != 0 {
				t.Errorf("no faults, and schedule %d shows %s", n, check.BarrierEnter)
			}
		}
	})
}
