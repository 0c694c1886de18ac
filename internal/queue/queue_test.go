package queue_test

import (
	"context"
	"errors"
	"fmt"
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
	c, ctx := queueDir(t, "/q")
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
	if err != nil || len(ms) != 1 || ms[0].GUID() != "g1" {
		t.Fatalf("ListStat = %v, %v; want the one member of kind a", ms, err)
	}
	if st.Version != 1 || st.NumChildren != 3 {
		t.Fatalf("ListStat's Stat: version %d, %d children; want 1 and 3", st.Version, st.NumChildren)
	}
}

// List takes a name for a member only if it ends in ZooKeeper's %010d of
// a sequence number within int32 (ten digits, or a sign and the digits
// of a wrapped counter), and orders members by that number.
func TestList_SequenceShapes(t *testing.T) {
	c, ctx := queueDir(t, "/q")
	names := []string{
		"lock-a-0000000001", "lock-b-2147483647", "lock-c--000000005", "lock-d--2147483648", // members
		"lock-e-2147483648", "lock-f--2147483649", "lock-g-99999999999", "lock-h-000000001", // out of range, wrong length
		"lock-i-+000000001", "lock-j-00000000x1", "lock--0000000002", "lock-0000000003", // not digits, no guid
	}
	for _, n := range names {
		if _, err := c.Create(ctx, "/q/"+n, nil, zkapi.Persistent); err != nil {
			t.Fatal(err)
		}
	}
	ms, err := queue.Queue{Conn: c, Dir: "/q"}.List(ctx, "lock")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, fmt.Sprintf("%s:%d", m.GUID(), m.Seq))
	}
	want := "[d:-2147483648 c:-5 a:1 b:2147483647]"
	if fmt.Sprint(got) != want {
		t.Fatalf("List = %v, want %s", got, want)
	}
}

// createLog is a Conn that notes the path and mode of every create.
type createLog struct {
	fakezk.Conn
	creates *[]string
}

func (c createLog) Create(ctx context.Context, path string, data []byte, mode zkapi.CreateMode) (string, error) {
	*c.creates = append(*c.creates, fmt.Sprintf("%s %v", path, mode))
	return c.Conn.Create(ctx, path, data, mode)
}

// Join creates a missing directory as a container and its ancestors as
// persistent nodes, and with ContainerParent the directory's parent as a
// container too (package semaphore's directory), root first.
func TestJoin_CreatesTheDirectory(t *testing.T) {
	for _, parent := range []bool{false, true} {
		srv := fakezk.MustServer(fakezk.Config{})
		c, err := srv.Connect(fakezk.ConnOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var creates []string
		q := queue.Queue{Conn: createLog{c, &creates}, Dir: "/a/bb/c", ContainerParent: parent}
		if _, _, err := q.Join(context.Background(), queue.Request{Kind: "lock", GUID: "g"}); err != nil {
			t.Fatal(err)
		}
		mid := zkapi.Persistent
		if parent {
			mid = zkapi.Container
		}
		want := fmt.Sprint([]string{
			fmt.Sprintf("/a/bb/c/lock-g- %v", zkapi.EphemeralSequential),
			fmt.Sprintf("/a %v", zkapi.Persistent), fmt.Sprintf("/a/bb %v", mid), fmt.Sprintf("/a/bb/c %v", zkapi.Container),
			fmt.Sprintf("/a/bb/c/lock-g- %v", zkapi.EphemeralSequential),
		})
		if got := fmt.Sprint(creates); got != want {
			t.Errorf("ContainerParent %t: creates %s, want %s", parent, got, want)
		}
		srv.Close()
	}
}

// queueDir serves a fresh fakezk holding the persistent node dir, and
// returns a connection to it and a context for the test's calls.
func queueDir(t *testing.T, dir string) (fakezk.Conn, context.Context) {
	t.Helper()
	srv := fakezk.MustServer(fakezk.Config{})
	t.Cleanup(func() { srv.Close() })
	c, err := srv.Connect(fakezk.ConnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	if _, err := c.Create(ctx, dir, nil, zkapi.Persistent); err != nil {
		t.Fatal(err)
	}
	return c, ctx
}

// List orders members by sequence number however many there are: a
// short listing and a long one (past the few a lock's queue holds) are
// sorted alike, whatever order the names were created in.
func TestList_OrdersShortAndLongListings(t *testing.T) {
	for _, n := range []int{5, 30} {
		c, ctx := queueDir(t, "/q")
		var want []int64
		for i := range n {
			seq := int64((i*7 + 3) % n) // every number below n, scrambled
			name := fmt.Sprintf("/q/lock-g%d-%010d", i, seq)
			if _, err := c.Create(ctx, name, nil, zkapi.Persistent); err != nil {
				t.Fatal(err)
			}
			want = append(want, int64(i))
		}
		ms, err := queue.Queue{Conn: c, Dir: "/q"}.List(ctx, "lock")
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, m := range ms {
			got = append(got, m.Seq)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%d members: List's sequence numbers %v, want %v", n, got, want)
		}
	}
}

// List refuses two members of its kinds that carry one sequence number,
// naming both; a member of another kind is no member of the listing.
func TestList_RefusesDuplicateSequence(t *testing.T) {
	c, ctx := queueDir(t, "/q")
	for _, n := range []string{"read-x-0000000001", "lock-a-0000000004", "lock-b-0000000004", "lock-c-0000000002"} {
		if _, err := c.Create(ctx, "/q/"+n, nil, zkapi.Persistent); err != nil {
			t.Fatal(err)
		}
	}
	q := queue.Queue{Conn: c, Dir: "/q"}
	_, err := q.List(ctx, "lock")
	want := "lock: two lock nodes share a sequence number: lock-a-0000000004 and lock-b-0000000004 in /q"
	if !errors.Is(err, queue.ErrDuplicateSequence) || err.Error() != want {
		t.Fatalf("List = %v, want %s", err, want)
	}
	ms, err := q.List(ctx, "read")
	if err != nil || len(ms) != 1 || ms[0].Kind() != "read" || ms[0].GUID() != "x" || ms[0].Seq != 1 {
		t.Fatalf("List(read) = %+v, %v; want read-x-0000000001 alone", ms, err)
	}
}
