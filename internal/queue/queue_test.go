package queue_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/zkapi"
)

// closingConn is a Conn cut off from the server whose owner closes it
// right after a delete fails with connection loss: the session, and its
// node, linger on the server until they expire.
type closingConn struct {
	fakezk.Conn
}

func (c closingConn) Delete(ctx context.Context, path string, version int32) error {
	err := c.Conn.Delete(ctx, path, version)
	c.Conn.Close()
	return err
}

// Leave does not claim a node is gone when it could not delete it: a
// Conn closed while cut off leaves the node until its session expires,
// and Leave says so (it used to drop AwaitLink's error and return nil).
func TestLeave_ClosedWhileCutOff(t *testing.T) {
	srv := fakezk.MustServer(fakezk.Config{})
	defer srv.Close()
	c, err := srv.Connect(fakezk.ConnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := c.Create(ctx, "/n-", nil, zkapi.EphemeralSequential)
	if err != nil {
		t.Fatal(err)
	}
	sid := c.Session().ID
	if err := srv.Disconnect(sid); err != nil {
		t.Fatal(err)
	}
	q := queue.Queue{Conn: closingConn{c}, Dir: "/"}
	if err := q.Leave(ctx, p, sid); !errors.Is(err, zkapi.ErrClosed) || !errors.Is(err, zkapi.ErrConnectionLoss) {
		t.Fatalf("Leave = %v, want connection loss and ErrClosed", err)
	}
	var left bool
	srv.Inspect(func(m fakezk.State) { _, _, left = m.Node(p) })
	if !left {
		t.Fatal("the node is gone: the test shows nothing")
	}
}

// ListStat lists as List does, with the directory's Stat read by the
// same request: the version package semaphore compares and sets.
func TestListStat_ReadsTheDirectorysVersion(t *testing.T) {
	srv := fakezk.MustServer(fakezk.Config{})
	defer srv.Close()
	c, err := srv.Connect(fakezk.ConnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Create(ctx, "/q", nil, zkapi.Persistent); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"/q/a-g1-", "/q/b-g2-", "/q/foreign"} {
		mode := zkapi.EphemeralSequential
		if name == "/q/foreign" {
			mode = zkapi.Ephemeral
		}
		if _, err := c.Create(ctx, name, nil, mode); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Set(ctx, "/q", []byte("x"), 0); err != nil {
		t.Fatal(err)
	}
	q := queue.Queue{Conn: c, Dir: "/q"}
	ms, st, err := q.ListStat(ctx, "a")
	if err != nil || len(ms) != 1 || ms[0].GUID != "g1" {
		t.Fatalf("ListStat = %v, %v; want the one member of kind a", ms, err)
	}
	if st.Version != 1 || st.NumChildren != 3 {
		t.Fatalf("ListStat's Stat: version %d, %d children; want 1 and 3", st.Version, st.NumChildren)
	}
}
