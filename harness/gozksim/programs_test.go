package gozksim_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/harness"
	"github.com/zksim/zksim/harness/gozksim"
	"github.com/zksim/zksim/harness/harnesstest"
	"github.com/zksim/zksim/internal/counterexample"
	"github.com/zksim/zksim/sim"
)

var acl = zk.WorldACL(zk.PermAll)

// A reader waits, through its watch, for a node a writer creates after
// a sleep of its own (on the bubble's clock, passing at the scheduler's
// ticks): the notification reaches the real client, and the run ends
// clean.
func TestPrograms_WatchFires(t *testing.T) {
	write := func(ctx context.Context, conn *zk.Conn) error {
		time.Sleep(5 * time.Second)
		_, err := conn.Create("/x", []byte("hi"), 0, acl)
		return err
	}
	read := func(ctx context.Context, conn *zk.Conn) error {
		for {
			ok, _, ch, err := conn.ExistsW("/x")
			if err != nil {
				return err
			}
			if ok {
				return nil
			}
			if ev := <-ch; ev.Type != zk.EventNodeCreated {
				return fmt.Errorf("event %v", ev)
			}
		}
	}
	rep, err := harness.Run(sim.Config{Faults: sim.Faults{None: true}}, sim.NewSeeded(1), gozksim.Programs(t, nil, read, write))
	if err != nil {
		t.Fatal(err)
	}
	trace := sim.TraceString(rep.Result.Trace)
	if !rep.OK() || !strings.Contains(trace, "recv c1 NodeCreated /x") || !strings.Contains(trace, " t5 ") {
		t.Fatalf("%v\n%s", rep.Violations, trace)
	}
}

// counter is two programs' read-modify-write of /n, each adding one,
// with the invariant that /n's value is its version (both start at 0,
// and each write adds one to both). Unfenced, a write based on a stale
// read loses an update, and the invariant breaks.
func counter(t *testing.T, fenced bool) harness.Subject {
	inc := func(ctx context.Context, conn *zk.Conn) error {
		if _, err := conn.Create("/n", []byte("0"), 0, acl); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return err
		}
		for {
			data, st, err := conn.Get("/n")
			if err != nil {
				return err
			}
			n, _ := strconv.Atoi(string(data))
			version := int32(-1)
			if fenced {
				version = st.Version
			}
			_, err = conn.Set("/n", []byte(strconv.Itoa(n+1)), version)
			if !errors.Is(err, zk.ErrBadVersion) {
				return err
			}
		}
	}
	valueIsVersion := func(s *sim.Sim) error {
		data, st, ok := s.State().Node("/n")
		if n, _ := strconv.Atoi(string(data)); ok && int32(n) != st.Version {
			return fmt.Errorf("/n is %d at version %d: an update was lost", n, st.Version)
		}
		return nil
	}
	return gozksim.Programs(t, valueIsVersion, inc, inc)
}

// harnesstest's own checks run go-zookeeper programs: the fenced
// counter passes the random and PCT checks and the exhaustive search.
func TestPrograms_HarnesstestChecks(t *testing.T) {
	w := counter(t, true)
	opts := harnesstest.Options{Config: sim.Config{Faults: sim.Faults{None: true}}}
	harnesstest.Check(t, w, opts)
	x := harnesstest.CheckExhaustive(t, w, opts, sim.Bounds{Deviations: 3})
	if x.Schedules < 10 {
		t.Fatalf("searched %d schedules", x.Schedules)
	}
}

// The unfenced counter's lost update is found by the random walk and
// by the exhaustive search, as an invariant violation.
func TestPrograms_LostUpdateFound(t *testing.T) {
	w := counter(t, false)
	if seed := firstSeed(t, w, sim.Config{Faults: sim.Faults{None: true}}, check.Invariant, 100); seed == 0 {
		t.Fatal("no lost update in 100 schedules")
	}
	x, err := harness.Explore(context.Background(), sim.Config{Faults: sim.Faults{None: true}}, w, sim.Bounds{Deviations: 3})
	if err != nil {
		t.Fatal(err)
	}
	if x.Counterexample == nil || !slices.Contains(x.Counterexample.Report.Classes(), check.Invariant) {
		t.Fatalf("the search found no lost update: %s", x.Coverage())
	}
}

// A program that draws at random (crypto/rand, outside the wire's
// GUIDs) does not replay: confirming its failure names the step where
// the second run parted from the first.
func TestPrograms_DivergenceNamed(t *testing.T) {
	random := func(ctx context.Context, conn *zk.Conn) error {
		if _, err := conn.Create(fmt.Sprintf("/n-%x", rand.Text()[:8]), nil, 0, acl); err != nil {
			return err
		}
		return errors.New("always fails")
	}
	w := gozksim.Programs(t, nil, random)
	cfg := sim.Config{Faults: sim.Faults{None: true}}
	var decisions []int
	rep, err := harness.Run(cfg, sim.Record(sim.NewSeeded(1), &decisions), w)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rep.Classes(), check.ClientError) {
		t.Fatalf("classes %v", rep.Classes())
	}
	err = counterexample.Confirm(harness.Counterexample{Subject: w, Config: cfg, Decisions: decisions, Report: rep})
	if !errors.Is(err, counterexample.ErrNondeterministic) || !strings.Contains(err.Error(), "diverged at step 1") {
		t.Fatalf("Confirm: %v", err)
	}
}
