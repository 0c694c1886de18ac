package harness_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zoo"
)

// recording is a planted recipe: a good lock whose holder also records
// itself in a node of its own, dir+"-holders/"+id, removed on release.
// With mode persistent, a holder that crashes leaves its record for
// good: an orphan no other checker sees (nobody waits on it). keep
// declares the holders' directory kept; giveUp makes a record create
// that fails with connection loss give up without looking, leaving the
// record if the create was applied and only its reply lost; multi makes
// the record in a multi; a sequential mode names it "id-" and a number.
type recording struct {
	mode   zkapi.CreateMode
	keep   bool
	giveUp bool
	multi  bool
}

func (rc recording) recipe() recipe.Lock {
	r := recipe.Lock{Name: "test/recording", Acquire: rc.acquire}
	if rc.keep {
		r.Keeps = func(dir, path string) bool { return path == dir+"-holders" }
	}
	return r
}

func (rc recording) acquire(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error) {
	m, err := lock.New(conn, dir, lock.Options{ID: id})
	if err != nil {
		return nil, err
	}
	held, err := m.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := rc.create(ctx, conn, dir+"-holders", zkapi.Persistent); err != nil {
		return nil, errors.Join(err, held.Release(ctx))
	}
	rec := dir + "-holders/" + id
	if proto.IsSequential(rc.mode) {
		rec += "-"
	}
	rec, err = rc.create(ctx, conn, rec, rc.mode)
	if err != nil {
		return nil, errors.Join(err, held.Release(ctx))
	}
	return recorded{held, conn, rec}, nil
}

// create makes the node at path and returns its name, retrying through
// connection loss (a node that exists is the one an earlier try made:
// ids are unique), unless rc gives up.
func (rc recording) create(ctx context.Context, conn zkapi.Conn, path string, mode zkapi.CreateMode) (string, error) {
	for {
		made, err := rc.try(ctx, conn, path, mode)
		switch {
		case err == nil:
			return made, nil
		case errors.Is(err, zkapi.ErrNodeExists):
			return path, nil
		case !errors.Is(err, zkapi.ErrConnectionLoss) || rc.giveUp:
			return "", err
		}
	}
}

// try is one create, plain or in a multi.
func (rc recording) try(ctx context.Context, conn zkapi.Conn, path string, mode zkapi.CreateMode) (string, error) {
	if !rc.multi {
		return conn.Create(ctx, path, nil, mode)
	}
	res, err := conn.Multi(ctx, zkapi.CreateOp{Path: path, Mode: mode})
	if err != nil {
		return "", err
	}
	return res[0].Path, nil
}

// recorded is a held lock with its record.
type recorded struct {
	recipe.Held
	conn zkapi.Conn
	rec  string
}

// Release removes the record (through connection loss; one already gone
// is fine), then releases the lock.
func (r recorded) Release(ctx context.Context) error {
	for {
		err := r.conn.Delete(ctx, r.rec, -1)
		if err == nil || errors.Is(err, zkapi.ErrNoNode) {
			return r.Held.Release(ctx)
		}
		if !errors.Is(err, zkapi.ErrConnectionLoss) {
			return errors.Join(err, r.Held.Release(ctx))
		}
	}
}

// orphanHunt runs seeds 1..n of w under faults and returns the orphan
// violations of the first run that shows one (nil: none did), with that
// run's faults.
func orphanHunt(t *testing.T, w harness.Subject, faults sim.Faults, n int) ([]check.Violation, map[string]int) {
	t.Helper()
	for seed := uint64(1); seed <= uint64(n); seed++ {
		rep, err := harness.Run(sim.Config{Faults: faults, Server: fakezkFollowers(seed)}, sim.NewSeeded(seed), w)
		if err != nil {
			t.Fatal(err)
		}
		var vs []check.Violation
		for _, v := range rep.Violations {
			if v.Class == check.Orphan {
				vs = append(vs, v)
			}
		}
		if len(vs) > 0 {
			return vs, rep.Result.Faults
		}
	}
	return nil, nil
}

// crashFaults crash a client and do nothing else.
var crashFaults = sim.Faults{Percent: 10, Crash: 1}

// abandonFaults are allFaults with an abandoned session.
var abandonFaults = sim.Faults{Percent: 10, LoseRequest: 2, LoseReply: 2, Disconnect: 2, Crash: 1, Pause: 1, Reap: 1, Abandon: 1}

// A node a crashed client created and nobody removed is an orphan,
// persistent or not, made by a create or in a multi, its name the
// server's for a sequential node; the same recipe whose records are
// ephemeral leaves none: a crashed client's ephemerals go when its
// session expires.
func TestOrphans_PersistentLeftAfterCrash(t *testing.T) {
	for _, rc := range []recording{
		{mode: zkapi.Persistent, keep: true},
		{mode: zkapi.Persistent, keep: true, multi: true},
		{mode: zkapi.PersistentSequential, keep: true},
	} {
		w := harness.Lock(rc.recipe(), harness.Workload{Clients: 2, Acquisitions: 2})
		vs, faults := orphanHunt(t, w, crashFaults, 300)
		if vs == nil {
			t.Errorf("%+v: no orphan in 300 crash-faulted runs of a recipe that leaves a persistent record when it crashes", rc)
			continue
		}
		v := vs[0]
		if faults["crash"] != 1 || !strings.Contains(v.Detail, "created persistent /locks/l-holders/") ||
			!strings.Contains(v.Detail, "and crashed at step") || len(v.Steps) != 2 {
			t.Errorf("%+v: orphan %q blaming %v, faults %v: want a persistent record, its creation and the crash blamed", rc, v.Detail, v.Steps, faults)
		}
		t.Log(v)
	}

	// Crashes, abandoned sessions and lost replies leave ephemeral
	// records on sessions that will expire: none is an orphan.
	for _, rc := range []recording{{mode: zkapi.Ephemeral, keep: true}, {mode: zkapi.Ephemeral, keep: true, multi: true}} {
		w := harness.Lock(rc.recipe(), harness.Workload{Clients: 2, Acquisitions: 2})
		if vs, _ := orphanHunt(t, w, abandonFaults, 300); vs != nil {
			t.Errorf("%+v: false orphan %v", rc, vs)
		}
	}
}

// The systematic search finds the persistent record left by a crash.
func TestOrphans_PersistentFoundByExplore(t *testing.T) {
	w := harness.Lock(recording{mode: zkapi.Persistent, keep: true}.recipe(), harness.Workload{Clients: 2, Acquisitions: 1})
	res, err := sim.Explore(t.Context(), sim.Config{Faults: sim.Faults{Crash: 1}}, harness.AsScenario(w), sim.Bounds{Deviations: 2, Class: check.Orphan})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil {
		t.Fatalf("no orphan: %s", res.Coverage())
	}
}

// A node the recipe keeps on purpose (Keeps) is no orphan; the same node
// undeclared is one, even in a run without faults.
func TestOrphans_KeptNodeNotFlagged(t *testing.T) {
	for _, keep := range []bool{true, false} {
		w := harness.Lock(recording{mode: zkapi.Ephemeral, keep: keep}.recipe(), harness.Workload{Clients: 2, Acquisitions: 1})
		rep, err := harness.Run(sim.Config{}, sim.NewSeeded(1), w)
		if err != nil {
			t.Fatal(err)
		}
		var want []check.Class
		if !keep {
			want = []check.Class{check.Orphan}
		}
		if got := rep.Classes(); !slices.Equal(got, want) {
			t.Errorf("keep %v: classes %v, want %v: %v", keep, got, want, rep.Violations)
		}
	}
}

// A create whose reply was lost made a node all the same: a recipe that
// gives up on it without looking leaves it, and it is found, named as
// such, in runs with no crash.
func TestOrphans_LostReplyCreate(t *testing.T) {
	w := harness.Lock(recording{mode: zkapi.Persistent, keep: true, giveUp: true}.recipe(), harness.Workload{Clients: 2, Acquisitions: 2})
	vs, faults := orphanHunt(t, w, sim.Faults{Percent: 10, LoseReply: 2}, 300)
	if vs == nil {
		t.Fatal("no orphan in 300 runs with lost replies")
	}
	if faults["crash"] != 0 || !strings.Contains(vs[0].Detail, "(its reply lost)") || !strings.Contains(vs[0].Detail, "and finished at step") {
		t.Errorf("orphan %q, faults %v: want a lost create's node, its client finished", vs[0].Detail, faults)
	}
	t.Log(vs[0])
}

// A barrier recipe's kept node (recipe.Barrier.Keeps) is no orphan; the
// same node undeclared is one.
func TestOrphans_BarrierKeptNodeNotFlagged(t *testing.T) {
	good := zoo.DoubleBarrier()
	counting := func(keep bool) recipe.Barrier {
		r := good
		r.Enter = func(ctx context.Context, conn zkapi.Conn, dir, id string, n int) (recipe.Leaver, error) {
			m, err := good.Enter(ctx, conn, dir, id, n)
			if err != nil {
				return nil, err
			}
			if _, err := conn.Create(ctx, dir+"-rounds", nil, zkapi.Persistent); err != nil && !errors.Is(err, zkapi.ErrNodeExists) {
				return nil, errors.Join(err, m.Leave(ctx))
			}
			return m, nil
		}
		if keep {
			r.Keeps = func(dir, path string) bool { return path == dir+"-rounds" }
		}
		return r
	}
	for _, keep := range []bool{true, false} {
		rep, err := harness.Run(sim.Config{}, sim.NewSeeded(1), harness.Barrier(counting(keep), harness.BarrierWorkload{Clients: 2, Rounds: 1}))
		if err != nil {
			t.Fatal(err)
		}
		var want []check.Class
		if !keep {
			want = []check.Class{check.Orphan}
		}
		if got := rep.Classes(); !slices.Equal(got, want) {
			t.Errorf("keep %v: classes %v, want %v: %v", keep, got, want, rep.Violations)
		}
	}
}
