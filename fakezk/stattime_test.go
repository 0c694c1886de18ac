package fakezk_test

import (
	"testing"
	"time"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/zkapi"
)

// ZooKeeper stamps ctime and mtime with the leader's wall clock in ms
// since 1970 (DataTree.createNode and setData, from the txn header's
// time), and mtime moves on every set. A default Server stamps by the
// host's clock plus the virtual time its Ticks added; with EpochMillis
// set, by EpochMillis plus virtual time only, the same every run.
func TestServer_StatTimesFromEpoch(t *testing.T) {
	srv := newServer(t, fakezk.Config{EpochMillis: 1_700_000_000_000})
	c := connect(t, srv, fakezk.ConnOptions{})
	mustCreate(t, c, "/n", zkapi.Persistent)
	srv.Tick(3)
	st, err := c.Set(ctx, "/n", []byte("x"), -1)
	if err != nil {
		t.Fatal(err)
	}
	if st.Ctime != 1_700_000_000_000 || st.Mtime != 1_700_000_000_000+3*2000 {
		t.Errorf("ctime %d mtime %d, want 1700000000000 and 1700000006000", st.Ctime, st.Mtime)
	}
}

func TestServer_StatTimesFromHostClock(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	c := connect(t, srv, fakezk.ConnOptions{})
	before := time.Now().UnixMilli()
	mustCreate(t, c, "/n", zkapi.Persistent)
	after := time.Now().UnixMilli()
	_, st, err := c.Get(ctx, "/n")
	if err != nil {
		t.Fatal(err)
	}
	// The server read its clock between before and after, give or take
	// the millisecond truncation of the two readings.
	if st.Ctime < before-1 || st.Ctime > after+1 {
		t.Errorf("ctime %d, want the host's clock, in [%d, %d]", st.Ctime, before, after)
	}
	srv.Tick(3)
	st, err = c.Set(ctx, "/n", []byte("x"), -1)
	if err != nil {
		t.Fatal(err)
	}
	if d := st.Mtime - st.Ctime; d < 3*2000 {
		t.Errorf("mtime %d ms after ctime after three ticks, want at least 6000", d)
	}
}

// A bare Machine keeps virtual time (EpochMillis 0): the simulator's
// traces print ctime and mtime as virtual milliseconds.
func TestMachine_StatTimesVirtual(t *testing.T) {
	m, err := machine.NewMachine(machine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	info, err := m.CreateSession(0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	id := info.ID
	m.Tick()
	r := m.Do(id, proto.Create{Path: "/n"})
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	r = m.Do(id, proto.Exists{Path: "/n"})
	if r.Stat.Ctime != 2000 {
		t.Errorf("Machine ctime after one tick: %d, want 2000", r.Stat.Ctime)
	}
}

func TestConfig_NegativeEpoch(t *testing.T) {
	if _, err := machine.NewMachine(machine.Config{EpochMillis: -1}); err == nil {
		t.Error("negative EpochMillis accepted")
	}
}
