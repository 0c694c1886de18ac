package fakezk_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/fakehook"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// TTL nodes follow ZooKeeper 3.8.0: PrepRequestProcessor.validateCreateRequest
// and EphemeralType.validateTTL for the checks, ContainerManager.getCandidates
// for the expiry, DataNode.copyStat for what clients see. The answers were
// recorded from 3.8.0 with zookeeper.extendedTypesEnabled=true
// (internal/netserver/testdata/rawttl.golden).

func ttlServer(t *testing.T, cfg fakezk.Config) (*fakezk.Server, fakezk.Conn) {
	t.Helper()
	srv := newServer(t, cfg)
	return srv, connect(t, srv, fakezk.ConnOptions{})
}

func createTTL(t *testing.T, c fakezk.Conn, path string, mode zkapi.CreateMode, ttl int64) string {
	t.Helper()
	p, err := c.CreateTTL(ctx, path, []byte("x"), mode, ttl)
	if err != nil {
		t.Fatalf("createTTL %s %s %d: %v", path, mode, ttl, err)
	}
	return p
}

// Without extended types (the default, as zookeeper.extendedTypesEnabled
// is off by default) a TTL create answers Unimplemented, before its path
// is looked at.
func TestTTL_OffByDefault(t *testing.T) {
	_, c := ttlServer(t, fakezk.Config{})
	for _, path := range []string{"/t", "/missing/t"} {
		if _, err := c.CreateTTL(ctx, path, nil, zkapi.PersistentWithTTL, 1000); !errors.Is(err, zkapi.ErrUnimplemented) {
			t.Errorf("createTTL %s without extended types: %v, want ErrUnimplemented", path, err)
		}
	}
}

// validateTTL: a TTL mode wants a TTL in [1, 2^40-1] ms, checked before
// the path; Create and CreateTTL refuse the other's modes before sending,
// as go-zookeeper does.
func TestTTL_Validation(t *testing.T) {
	_, c := ttlServer(t, fakezk.Config{ExtendedTypes: true})
	bad := []struct {
		path string
		mode zkapi.CreateMode
		ttl  int64
	}{
		{"/t", zkapi.PersistentWithTTL, 0},
		{"/t", zkapi.PersistentWithTTL, -1},
		{"/t", zkapi.PersistentSequentialWithTTL, proto.MaxTTLMillis + 1},
		{"/missing/t", zkapi.PersistentWithTTL, 0}, // the TTL before the parent
		{"/t", zkapi.Persistent, 1000},
		{"/t", zkapi.Container, 1000},
	}
	for _, b := range bad {
		if _, err := c.CreateTTL(ctx, b.path, nil, b.mode, b.ttl); !errors.Is(err, zkapi.ErrBadArguments) {
			t.Errorf("createTTL %s %s ttl %d: %v, want ErrBadArguments", b.path, b.mode, b.ttl, err)
		}
	}
	if _, err := c.Create(ctx, "/t", nil, zkapi.PersistentWithTTL); !errors.Is(err, zkapi.ErrBadArguments) {
		t.Errorf("create with a TTL mode: %v, want ErrBadArguments", err)
	}
	createTTL(t, c, "/max", zkapi.PersistentWithTTL, proto.MaxTTLMillis)
	if _, err := c.CreateTTL(ctx, "/missing/t", nil, zkapi.PersistentWithTTL, 1); !errors.Is(err, zkapi.ErrNoNode) {
		t.Errorf("createTTL under a missing parent: %v, want ErrNoNode", err)
	}
}

// A TTL node shows ephemeralOwner 0, as a container does; a sequential
// one gets its suffix; it may have children, ephemeral ones too.
func TestTTL_Node(t *testing.T) {
	_, c := ttlServer(t, fakezk.Config{ExtendedTypes: true})
	createTTL(t, c, "/t", zkapi.PersistentWithTTL, 5000)
	_, st, err := c.Get(ctx, "/t")
	if err != nil || st.EphemeralOwner != 0 || st.DataLength != 1 {
		t.Errorf("get /t: %+v, %v; want ephemeralOwner 0, 1 byte", st, err)
	}
	if p := createTTL(t, c, "/t/s-", zkapi.PersistentSequentialWithTTL, 5000); p != "/t/s-0000000000" {
		t.Errorf("sequential TTL node %q, want /t/s-0000000000", p)
	}
	mustCreate(t, c, "/t/e", zkapi.Ephemeral)
}

// The reaper deletes a TTL node without children once its mtime is more
// than its TTL before the check (getElapsed(node) > ttl), at the first
// check after that. The create at virtual time 0 really came somewhere
// in the first tick, so the node is surely that old only a tick later:
// never deleted early, at most a tick late.
func TestTTL_ReapedAfterTTL(t *testing.T) {
	cfg := fakezk.Config{ExtendedTypes: true, TickMillis: 1000, ContainerCheckTicks: 5}
	for _, tc := range []struct {
		ttl  int64
		gone int // ticks until the check that reaps it
	}{{1, 5}, {3999, 5}, {4000, 5}, {4001, 10}, {7000, 10}, {9000, 10}, {9001, 15}} {
		srv, c := ttlServer(t, cfg)
		createTTL(t, c, "/t", zkapi.PersistentWithTTL, tc.ttl)
		if d := dueOf(srv); d != int64(tc.gone) {
			t.Errorf("ttl %d: Due %d, want %d", tc.ttl, d, tc.gone)
		}
		srv.Tick(tc.gone - 1)
		if !exists(t, c, "/t") {
			t.Fatalf("ttl %d: reaped before tick %d", tc.ttl, tc.gone)
		}
		w := existsW(t, c, "/t")
		srv.Tick(1)
		if ev, ok := fired(t, w); !ok || ev.Type != zkapi.EventNodeDeleted {
			t.Errorf("ttl %d: at tick %d the watch saw %v, %v; want NodeDeleted", tc.ttl, tc.gone, ev, ok)
		}
	}
}

func dueOf(srv *fakezk.Server) int64 {
	var d int64
	fakehook.Inspect(srv, func(m *machine.Machine) { d = m.Due() })
	return d
}

// A setData moves the mtime, and so the expiry; children keep the node
// (their comings and goings do not move its mtime); without extended
// types nothing is reaped but containers.
func TestTTL_ReaperReadsMtimeAndChildren(t *testing.T) {
	cfg := fakezk.Config{ExtendedTypes: true, TickMillis: 1000, ContainerCheckTicks: 5}
	srv, c := ttlServer(t, cfg)
	createTTL(t, c, "/set", zkapi.PersistentWithTTL, 7000)
	createTTL(t, c, "/parent", zkapi.PersistentWithTTL, 1000)
	mustCreate(t, c, "/parent/c", zkapi.Persistent)
	srv.Tick(4)
	if _, err := c.Set(ctx, "/set", []byte("y"), -1); err != nil {
		t.Fatal(err)
	}
	srv.Tick(6) // t=10 s: /set is 6 s old
	if !exists(t, c, "/set") || !exists(t, c, "/parent") {
		t.Fatal("reaped at 10 s: /set changed at 4 s with a 7 s TTL; /parent has a child")
	}
	if err := c.Delete(ctx, "/parent/c", -1); err != nil {
		t.Fatal(err)
	}
	srv.Tick(5) // t=15 s
	if exists(t, c, "/set") || exists(t, c, "/parent") {
		t.Error("not reaped at 15 s: /set 11 s old with a 7 s TTL; /parent childless and 15 s old with a 1 s TTL")
	}
}

// A multi applies TTL creates through the Machine (the wire server
// serves them), but the Conn refuses them before sending, as go-zookeeper
// must: its Multi cannot send a createTTL.
func TestTTL_Multi(t *testing.T) {
	srv, c := ttlServer(t, fakezk.Config{ExtendedTypes: true})
	op := zkapi.CreateOp{Path: "/m", Mode: zkapi.PersistentWithTTL, TTLMillis: 1000}
	if _, err := c.Multi(ctx, op); !errors.Is(err, zkapi.ErrBadArguments) || !strings.Contains(err.Error(), "TTL") {
		t.Errorf("Conn.Multi with a TTL create: %v, want ErrBadArguments", err)
	}
	fakehook.Inspect(srv, func(m *machine.Machine) {
		id, err := m.CreateSession(0, 10000)
		if err != nil {
			t.Fatal(err)
		}
		bad := m.Do(id.ID, proto.Multi{Ops: []zkapi.Op{zkapi.CreateOp{Path: "/m", Mode: zkapi.PersistentWithTTL}}})
		if !errors.Is(bad.Err, zkapi.ErrBadArguments) {
			t.Errorf("multi with a TTL create of ttl 0: %v, want ErrBadArguments", bad.Err)
		}
		if rep := m.Do(id.ID, proto.Multi{Ops: []zkapi.Op{op}}); rep.Err != nil {
			t.Errorf("multi with a TTL create: %v", rep.Err)
		}
	})
	if !exists(t, c, "/m") {
		t.Error("/m not created by the multi")
	}
}

// A default Server stamps mtime by the host's clock, but a TTL node ages
// by Ticks alone: wall time passing between the create and the check
// does not reap it a check early (ttl 4001: at 5 ticks of 1 s the node is
// surely 4000 ms old, not more, however long the test took).
func TestTTL_AgesByTicksNotTheHostClock(t *testing.T) {
	srv, c := ttlServer(t, fakezk.Config{ExtendedTypes: true, TickMillis: 1000, ContainerCheckTicks: 5})
	createTTL(t, c, "/t", zkapi.PersistentWithTTL, 4001)
	time.Sleep(20 * time.Millisecond) // the host's clock moves on; no tick does
	srv.Tick(5)
	if !exists(t, c, "/t") {
		t.Fatal("reaped at the first check: its age counted the host's clock")
	}
	srv.Tick(5)
	if exists(t, c, "/t") {
		t.Error("not reaped at the second check, 10 s after its create")
	}
}
