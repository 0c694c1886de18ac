package fakezk_test

import (
	"errors"
	"testing"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/zkapi"
)

// docs/zk-semantics.md rule 22: reads may be stale (served by a follower); a client sees
// its own writes; sync makes its replica catch up; watches on a follower fire
// when the follower applies the change.
func TestFollower_StaleReads(t *testing.T) {
	srv := newServer(t, fakezk.Config{Followers: 1})
	writer := connect(t, srv, fakezk.ConnOptions{Replica: 0})
	reader := connect(t, srv, fakezk.ConnOptions{Replica: 1})

	mustCreate(t, writer, "/x", zkapi.Persistent)
	if _, ok, _ := reader.Exists(ctx, "/x"); ok {
		t.Fatal("follower served a write it has not applied")
	}
	if err := reader.Sync(ctx, "/x"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := reader.Exists(ctx, "/x"); !ok {
		t.Fatal("sync did not catch the follower up")
	}
	_, _, w, err := reader.GetW(ctx, "/x")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writer.Set(ctx, "/x", []byte("1"), -1); err != nil {
		t.Fatal(err)
	}
	if _, ok := fired(t, w); ok {
		t.Fatal("follower's watch fired before the follower applied the change")
	}
	srv.Tick(1)
	if ev, ok := fired(t, w); !ok || ev.Type != zkapi.EventNodeDataChanged {
		t.Fatalf("after catch-up: %v %v", ev, ok)
	}
	mustCreate(t, reader, "/mine", zkapi.Persistent)
	if _, ok, _ := reader.Exists(ctx, "/mine"); !ok {
		t.Fatal("a client did not see its own write")
	}
}

// docs/zk-semantics.md rule 22: a client never sees older state after reconnecting: a
// server behind the client's last zxid refuses it.
func TestFollower_NoGoingBack(t *testing.T) {
	m, _ := machine.NewMachine(machine.Config{Followers: 1})
	info, _ := m.CreateSession(0, 4000)
	r := m.Do(info.ID, proto.Create{Path: "/a"})
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	m.Detach(info.ID)
	if err := m.Attach(info.ID, 1, r.Zxid); !errors.Is(err, zkapi.ErrConnectionLoss) {
		t.Fatalf("attach to a follower behind the client: %v, want refusal", err)
	}
	m.CatchUp(1, r.Zxid)
	if err := m.Attach(info.ID, 1, r.Zxid); err != nil {
		t.Fatalf("attach after catch-up: %v", err)
	}
	if got := m.Do(info.ID, proto.Exists{Path: "/a"}); got.Err != nil || got.Zxid < r.Zxid {
		t.Fatalf("read after reconnect: %v, went back before zxid %d", got, r.Zxid)
	}
}

// go-zookeeper v1.0.4 moves on to the next server at every connect, even
// when the one it had is healthy (dnshostprovider.go Next), and a session
// that has read nothing has lastZxid 0, so nothing stops it landing on a
// follower that is behind: it may read older state than the leader it
// left. A client that has read refuses to go back (TestFollower_NoGoingBack).
func TestConn_ReconnectMovesOnToTheNextServer(t *testing.T) {
	srv := newServer(t, fakezk.Config{Followers: 1})
	writer := connect(t, srv, fakezk.ConnOptions{Replica: 0})
	reader := connect(t, srv, fakezk.ConnOptions{Replica: 0})
	mustCreate(t, writer, "/x", zkapi.Persistent)

	id := reader.Session().ID
	if err := srv.Disconnect(id); err != nil {
		t.Fatal(err)
	}
	if err := srv.Reconnect(id); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := reader.Exists(ctx, "/x"); err != nil || ok {
		t.Fatalf("after a reconnect, exists /x = %v, %v: want the follower's older state (it moved on)", ok, err)
	}
	if err := srv.Disconnect(id); err != nil {
		t.Fatal(err)
	}
	if err := srv.Reconnect(id); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := reader.Exists(ctx, "/x"); err != nil || !ok {
		t.Fatalf("after a second reconnect, exists /x = %v, %v: want the leader's state", ok, err)
	}
}
