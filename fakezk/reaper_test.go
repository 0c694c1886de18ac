package fakezk_test

import (
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/zkapi"
)

// emptiedContainer creates the container /d, gives it a child and deletes
// the child, so that a reaper would remove /d.
func emptiedContainer(t *testing.T, c zkapi.Conn) {
	t.Helper()
	mustCreate(t, c, "/d", zkapi.Container)
	mustCreate(t, c, "/d/c", zkapi.Persistent)
	if err := c.Delete(ctx, "/d/c", -1); err != nil {
		t.Fatal(err)
	}
}

func exists(t *testing.T, c zkapi.Conn, path string) bool {
	t.Helper()
	_, ok, err := c.Exists(ctx, path)
	if err != nil {
		t.Fatalf("exists %s: %v", path, err)
	}
	return ok
}

// A default Server reaps emptied containers at least every 60 s of virtual
// time, as ZooKeeper's ContainerManager does with its default
// znode.container.checkIntervalMs of 60000 (started by ZooKeeperServerMain
// and LeaderZooKeeperServer, 3.8.0): 30 ticks of 2000 ms.
func TestServer_DefaultReapsContainers(t *testing.T) {
	for _, tc := range []struct {
		tick, ticks int64
	}{{0, 30}, {2000, 30}, {500, 120}, {7000, 8}, {90000, 1}} {
		srv := newServer(t, fakezk.Config{TickMillis: tc.tick})
		c := connect(t, srv, fakezk.ConnOptions{})
		emptiedContainer(t, c)
		srv.Tick(int(tc.ticks - 1))
		if !exists(t, c, "/d") {
			t.Fatalf("tick %d ms: reaped before 60 s", tc.tick)
		}
		srv.Tick(1)
		if exists(t, c, "/d") {
			t.Errorf("tick %d ms: emptied container still there after %d ticks", tc.tick, tc.ticks)
		}
	}
}

// A negative ContainerCheckTicks turns the Server's reaper off; a Machine
// reaps by itself only when asked to (the simulator injects reaps as a
// fault of its own).
func TestServer_ReaperOff(t *testing.T) {
	srv := newServer(t, fakezk.Config{ContainerCheckTicks: -1})
	c := connect(t, srv, fakezk.ConnOptions{})
	emptiedContainer(t, c)
	srv.Tick(300)
	if !exists(t, c, "/d") {
		t.Error("ContainerCheckTicks -1: container reaped")
	}
	m, err := machine.NewMachine(machine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Config().ContainerCheckTicks; got != 0 {
		t.Errorf("Machine's default ContainerCheckTicks = %d, want 0 (no reaper)", got)
	}
}
