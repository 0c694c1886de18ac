package gozksim_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/harness/gozksim"
	"github.com/zksim/zksim/internal/counterexample"
	"github.com/zksim/zksim/internal/longtest"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zoo"
)

// goZKLock is go-zookeeper's own lock, its code as released.
func goZKLock(conn *zk.Conn, dir string) (func() error, error) {
	l := zk.NewLock(conn, dir, zk.WorldACL(zk.PermAll))
	return l.Unlock, l.Lock()
}

// firstSeed is the first seed in 1..n whose run under cfg shows class,
// and the seeds it took; 0 if none does.
func firstSeed(t *testing.T, w harness.Subject, cfg sim.Config, class check.Class, n uint64) uint64 {
	t.Helper()
	cfg.NoTrace = true
	for seed := uint64(1); seed <= n; seed++ {
		rep, err := harness.Run(cfg, sim.NewSeeded(seed), w)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(rep.Classes(), class) {
			return seed
		}
	}
	return 0
}

// go-zookeeper's Lock, unmodified, leaves its node behind when a
// connection loss fails Lock after the create (samuel/go-zookeeper#229):
// the random walk and PCT find the orphan among the default faults, the
// systematic search with one fault of each kind, and the shrunk
// counterexample replays byte for byte from its trace file.
func TestLock_GoZKLockOrphanFound(t *testing.T) {
	w := gozksim.Lock(t, "gozk", goZKLock, harness.Workload{Clients: 3, Acquisitions: 2})
	for _, pct := range []bool{false, true} {
		cfg := sim.Config{Faults: sim.DefaultFaults(), PCT: pct}
		seed := firstSeed(t, w, cfg, check.Orphan, 200)
		if seed == 0 {
			t.Fatalf("PCT %v: no orphan in 200 schedules", pct)
		}
		t.Logf("PCT %v: orphan in schedule %d", pct, seed)
		ce, ok := counterexample.ShrinkSeed(w, cfg, seed, check.Orphan, 20*time.Second)
		if !ok {
			t.Fatalf("PCT %v: seed %d does not shrink to an orphan", pct, seed)
		}
		if err := counterexample.Confirm(ce); err != nil {
			t.Fatal(err)
		}
		path, _, err := harness.SaveFailure(t.TempDir(), "gozk", ce, nil)
		if err != nil {
			t.Fatal(err)
		}
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := harness.ParseTraceFile(string(text))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := harness.Replay(f, w)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(path), err)
		}
		if !slices.Contains(rep.Classes(), check.Orphan) {
			t.Fatalf("the replay shows %v", rep.Classes())
		}
	}
	x, err := harness.Explore(context.Background(), sim.Config{Faults: sim.OneOfEach()},
		gozksim.Lock(t, "gozk", goZKLock, harness.Workload{Clients: 2, Acquisitions: 1}),
		sim.Bounds{Deviations: 3, Class: check.Orphan})
	if err != nil {
		t.Fatal(err)
	}
	if x.Counterexample == nil {
		t.Fatalf("the systematic search found no orphan: %s", x.Coverage())
	}
	t.Logf("exhaustive: orphan after %d schedules, %d states, at %d deviations", x.Schedules, x.Visited, x.Deviation)
}

// The zoo's transcription of go-zookeeper's Lock to zkapi (zoo/gozk) and
// the library's own code agree: under each of the transcription's
// documented bug scenarios both show the same violation, and with no
// fault neither shows any.
func TestLock_TranscriptionAgrees(t *testing.T) {
	ex, _ := zoo.Lookup(zoo.NameGoZKLock)
	cases := []struct {
		name  string
		cfg   sim.Config
		w     harness.Workload
		class check.Class
	}{
		{"every default fault (#229)", sim.Config{Faults: sim.DefaultFaults()}, harness.Workload{Clients: 3}, check.Orphan},
		{"lost create reply and lookup", sim.Config{Faults: sim.Faults{Percent: 10, LoseReply: 1, LoseRequest: 1}}, harness.Workload{Clients: 3}, check.Orphan},
		{"sequence overflow", sim.Config{Faults: sim.Faults{None: true}}, harness.Workload{Clients: 3, SequenceStart: 1<<31 - 2}, check.MutualExclusion},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			zkapiSeed := firstSeed(t, harness.Lock(ex.Recipe, c.w), c.cfg, c.class, 2000)
			realSeed := firstSeed(t, gozksim.Lock(t, "gozk", goZKLock, c.w), c.cfg, c.class, 2000)
			t.Logf("%s: zkapi transcription in schedule %d, go-zookeeper in schedule %d", c.class, zkapiSeed, realSeed)
			if zkapiSeed == 0 || realSeed == 0 {
				t.Errorf("%s not found by both", c.class)
			}
		})
	}
	t.Run("no faults", func(t *testing.T) {
		cfg := sim.Config{Faults: sim.Faults{None: true}, NoTrace: true}
		for _, w := range []harness.Subject{harness.Lock(ex.Recipe, harness.Workload{}), gozksim.Lock(t, "gozk", goZKLock, harness.Workload{})} {
			for seed := uint64(1); seed <= 50; seed++ {
				rep, err := harness.Run(cfg, sim.NewSeeded(seed), w)
				if err != nil {
					t.Fatal(err)
				}
				if !rep.OK() {
					t.Fatalf("%v, seed %d: %v", w, seed, rep.Violations)
				}
			}
		}
	})
}

// The transcription's adopted-node bug (an abandoned session's node
// found by its GUID and held, CURATOR-498's shape) needs a lookup sent on
// the new session. go-zookeeper sends it there only when its server list
// has three addresses or more: with one or two, the connect loop retries
// from the start of the list after the refused handshake and fails the
// queued lookup with ErrNoServer. So both show mutual exclusion on three
// servers (two followers), and only the transcription on one.
func TestLock_TranscriptionAgreesOnAdoption(t *testing.T) {
	longtest.Skip(t)
	ex, _ := zoo.Lookup(zoo.NameGoZKLock)
	w := harness.Workload{Clients: 3}
	cfg := sim.Config{Faults: sim.DefaultFaults()}
	one := firstSeed(t, gozksim.Lock(t, "gozk", goZKLock, w), cfg, check.MutualExclusion, 1000)
	cfg.Server.Followers = 2
	zkapiSeed := firstSeed(t, harness.Lock(ex.Recipe, w), cfg, check.MutualExclusion, 2000)
	realSeed := firstSeed(t, gozksim.Lock(t, "gozk", goZKLock, w), cfg, check.MutualExclusion, 2000)
	t.Logf("three servers: zkapi transcription in schedule %d, go-zookeeper in schedule %d; one server: go-zookeeper %d", zkapiSeed, realSeed, one)
	if zkapiSeed == 0 || realSeed == 0 {
		t.Error("mutual exclusion not found by both on three servers")
	}
	if one != 0 {
		t.Errorf("go-zookeeper on one server adopted a node in schedule %d", one)
	}
}
