package fakezk_test

import (
	"testing"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/zkapi"
)

// ZooKeeper stamps ctime and mtime with the leader's wall clock in ms
// since 1970 (DataTree.createNode and setData, from the txn header's
// time), and mtime moves on every set. A default Server stands at
// DefaultEpochMillis at virtual time 0, never the wall clock, so that a
// set after a virtual delay has a later mtime and a test reads the same
// numbers every run.
func TestServer_StatTimesFromEpoch(t *testing.T) {
	for _, tc := range []struct {
		epoch, want int64
	}{{0, machine.DefaultEpochMillis}, {1_700_000_000_000, 1_700_000_000_000}} {
		srv := newServer(t, fakezk.Config{EpochMillis: tc.epoch})
		c := connect(t, srv, fakezk.ConnOptions{})
		mustCreate(t, c, "/n", zkapi.Persistent)
		srv.Tick(3)
		st, err := c.Set(ctx, "/n", []byte("x"), -1)
		if err != nil {
			t.Fatal(err)
		}
		if st.Ctime != tc.want || st.Mtime != tc.want+3*2000 {
			t.Errorf("epoch %d: ctime %d mtime %d, want %d and %d", tc.epoch, st.Ctime, st.Mtime, tc.want, tc.want+6000)
		}
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
