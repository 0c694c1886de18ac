package gozk_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

func TestConn_CreateModes(t *testing.T) {
	servers := standalone(t)
	root := newRoot(t, servers)
	c := dial(t, servers, gozk.Config{})
	ctx := testCtx(t)
	sid := c.Session().ID

	tests := []struct {
		path      string
		mode      zkapi.CreateMode
		wantName  string // "" for a sequential name checked by prefix
		ephemeral bool
	}{
		{root + "/p", zkapi.Persistent, root + "/p", false},
		{root + "/e", zkapi.Ephemeral, root + "/e", true},
		{root + "/ps-", zkapi.PersistentSequential, "", false},
		{root + "/es-", zkapi.EphemeralSequential, "", true},
		// docs/zk-semantics.md rule 2: the name is validated after the suffix is added.
		{root + "/p/", zkapi.PersistentSequential, "", false},
		{root + "/c", zkapi.Container, root + "/c", false},
	}
	for _, tt := range tests {
		name, err := c.Create(ctx, tt.path, []byte(tt.mode.String()), tt.mode)
		if err != nil {
			t.Errorf("Create(%s, %v): %v", tt.path, tt.mode, err)
			continue
		}
		if tt.wantName != "" && name != tt.wantName {
			t.Errorf("Create(%s, %v) = %s", tt.path, tt.mode, name)
		}
		// docs/zk-semantics.md rule 5: the suffix is %010d of the parent's creation count.
		if tt.wantName == "" && !isSequentialName(name, tt.path) {
			t.Errorf("Create(%s, %v) = %s, want the path and 10 digits", tt.path, tt.mode, name)
		}
		data, st, err := c.Get(ctx, name)
		if err != nil || string(data) != tt.mode.String() {
			t.Errorf("Get(%s) = %q, %v", name, data, err)
		}
		if owned := st.EphemeralOwner == sid; owned != tt.ephemeral {
			t.Errorf("%s: EphemeralOwner %#x, session %#x, want owned %v", name, st.EphemeralOwner, sid, tt.ephemeral)
		}
		if st.Czxid == 0 || st.Czxid != st.Mzxid || st.Czxid != st.Pzxid || st.Version != 0 || st.DataLength != int32(len(data)) {
			t.Errorf("%s: Stat %+v, want czxid = mzxid = pzxid, version 0, dataLength %d", name, st, len(data))
		}
	}

	_, err := c.Create(ctx, root+"/p", nil, zkapi.Persistent)
	checkErr(t, "create existing", err, zkapi.ErrNodeExists, "create", root+"/p")
	_, err = c.Create(ctx, root+"/none/x", nil, zkapi.Persistent)
	checkErr(t, "create under missing parent", err, zkapi.ErrNoNode, "create", root+"/none/x")
	_, err = c.Create(ctx, root+"/e/x", nil, zkapi.Persistent)
	checkErr(t, "create under ephemeral", err, zkapi.ErrNoChildrenForEphemerals, "create", root+"/e/x")
	_, err = c.Create(ctx, root+"/bad", nil, zkapi.CreateMode(7))
	checkErr(t, "create with invalid mode", err, zkapi.ErrBadArguments, "create", root+"/bad")
}

func isSequentialName(name, prefix string) bool {
	digits, ok := strings.CutPrefix(name, prefix)
	if !ok || len(digits) != 10 {
		return false
	}
	_, err := fmt.Sscanf(digits, "%d", new(int))
	return err == nil
}

// checkErr checks that err is an *proto.OpError for op and path wrapping want.
func checkErr(t *testing.T, what string, err, want error, op, path string) {
	t.Helper()
	var opErr *proto.OpError
	if !errors.Is(err, want) || !errors.As(err, &opErr) || opErr.Op != op || opErr.Path != path {
		t.Errorf("%s: error %v, want %s %s wrapping %v", what, err, op, path, want)
	}
}

func TestConn_GetSetVersions(t *testing.T) {
	servers := standalone(t)
	root := newRoot(t, servers)
	c := dial(t, servers, gozk.Config{})
	ctx := testCtx(t)
	p := root + "/n"
	if _, err := c.Create(ctx, p, []byte("v0"), zkapi.Persistent); err != nil {
		t.Fatal(err)
	}
	st, err := c.Set(ctx, p, []byte("v1"), 0)
	if err != nil || st.Version != 1 || st.DataLength != 2 || st.Mzxid <= st.Czxid {
		t.Fatalf("Set version 0 = %+v, %v; want version 1 and a new mzxid", st, err)
	}
	_, err = c.Set(ctx, p, []byte("v2"), 0)
	checkErr(t, "set stale version", err, zkapi.ErrBadVersion, "set", p)
	if st, err = c.Set(ctx, p, []byte("v2"), zkapi.AnyVersion); err != nil || st.Version != 2 {
		t.Fatalf("Set any version = %+v, %v", st, err)
	}
	data, got, err := c.Get(ctx, p)
	if err != nil || !bytes.Equal(data, []byte("v2")) || got != st {
		t.Fatalf("Get = %q, %+v, %v; want v2, %+v", data, got, err, st)
	}
	got, ok, err := c.Exists(ctx, p)
	if err != nil || !ok || got != st {
		t.Fatalf("Exists = %+v, %v, %v", got, ok, err)
	}

	if _, err := c.Create(ctx, p+"/kid", nil, zkapi.Persistent); err != nil {
		t.Fatal(err)
	}
	kids, pst, err := c.Children(ctx, p)
	if err != nil || !reflect.DeepEqual(kids, []string{"kid"}) || pst.NumChildren != 1 {
		t.Fatalf("Children = %v, %+v, %v", kids, pst, err)
	}
	// docs/zk-semantics.md rule 11: BadVersion is checked before NotEmpty.
	checkErr(t, "delete bad version", c.Delete(ctx, p, 7), zkapi.ErrBadVersion, "delete", p)
	checkErr(t, "delete non-empty", c.Delete(ctx, p, 2), zkapi.ErrNotEmpty, "delete", p)
	if err := c.Delete(ctx, p+"/kid", 0); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, p, 2); err != nil {
		t.Fatal(err)
	}
	st, ok, err = c.Exists(ctx, p)
	if err != nil || ok || st != (zkapi.Stat{}) {
		t.Fatalf("Exists after delete = %+v, %v, %v; want the zero Stat, false, nil", st, ok, err)
	}
	_, _, err = c.Get(ctx, p)
	checkErr(t, "get missing", err, zkapi.ErrNoNode, "get", p)
	_, err = c.Set(ctx, p, nil, zkapi.AnyVersion)
	checkErr(t, "set missing", err, zkapi.ErrNoNode, "set", p)
	_, _, err = c.Children(ctx, p)
	checkErr(t, "children missing", err, zkapi.ErrNoNode, "children", p)
	checkErr(t, "delete missing", c.Delete(ctx, p, zkapi.AnyVersion), zkapi.ErrNoNode, "delete", p)
	if err := c.Sync(ctx, root); err != nil {
		t.Errorf("Sync: %v", err)
	}
}

// docs/zk-semantics.md rule 14: exists on a missing node sets a watch that fires
// NodeCreated.
func TestConn_ExistsWatchFiresNodeCreated(t *testing.T) {
	servers := standalone(t)
	root := newRoot(t, servers)
	c := dial(t, servers, gozk.Config{})
	ctx := testCtx(t)
	p := root + "/later"
	_, ok, w, err := c.ExistsW(ctx, p)
	if err != nil || ok || w == nil {
		t.Fatalf("ExistsW = %v, %v, %v; want missing, a watch, no error", ok, w, err)
	}
	if _, err := c.Create(ctx, p, nil, zkapi.Persistent); err != nil {
		t.Fatal(err)
	}
	want := zkapi.Event{Type: zkapi.EventNodeCreated, Path: p}
	if ev := mustWait(t, ctx, w); ev != want {
		t.Errorf("event %v, want %v", ev, want)
	}
	if ev := mustWait(t, ctx, w); ev != want {
		t.Errorf("second Wait %v, want the same %v", ev, want)
	}
}

// docs/zk-semantics.md rule 15: setData fires NodeDataChanged on exists and data watches;
// delete fires NodeDeleted on the node and NodeChildrenChanged on the parent.
func TestConn_DataAndDeleteWatches(t *testing.T) {
	servers := standalone(t)
	root := newRoot(t, servers)
	c := dial(t, servers, gozk.Config{})
	ctx := testCtx(t)
	p := root + "/n"
	if _, err := c.Create(ctx, p, []byte("a"), zkapi.Persistent); err != nil {
		t.Fatal(err)
	}
	_, ok, existsW, err := c.ExistsW(ctx, p)
	if err != nil || !ok {
		t.Fatalf("ExistsW = %v, %v", ok, err)
	}
	if _, err := c.Set(ctx, p, []byte("b"), zkapi.AnyVersion); err != nil {
		t.Fatal(err)
	}
	if ev := mustWait(t, ctx, existsW); ev != (zkapi.Event{Type: zkapi.EventNodeDataChanged, Path: p}) {
		t.Errorf("exists watch: %v", ev)
	}

	data, _, getW, err := c.GetW(ctx, p)
	if err != nil || string(data) != "b" {
		t.Fatalf("GetW = %q, %v", data, err)
	}
	kids, _, childW, err := c.ChildrenW(ctx, root)
	if err != nil || len(kids) != 1 {
		t.Fatalf("ChildrenW = %v, %v", kids, err)
	}
	if err := c.Delete(ctx, p, zkapi.AnyVersion); err != nil {
		t.Fatal(err)
	}
	if ev := mustWait(t, ctx, getW); ev != (zkapi.Event{Type: zkapi.EventNodeDeleted, Path: p}) {
		t.Errorf("data watch: %v", ev)
	}
	if ev := mustWait(t, ctx, childW); ev != (zkapi.Event{Type: zkapi.EventNodeChildrenChanged, Path: root}) {
		t.Errorf("child watch: %v", ev)
	}
}

func TestConn_ChildWatch(t *testing.T) {
	servers := standalone(t)
	root := newRoot(t, servers)
	c := dial(t, servers, gozk.Config{})
	other := dial(t, servers, gozk.Config{})
	ctx := testCtx(t)
	kids, st, w, err := c.ChildrenW(ctx, root)
	if err != nil || len(kids) != 0 || st.NumChildren != 0 {
		t.Fatalf("ChildrenW = %v, %+v, %v", kids, st, err)
	}
	if _, err := other.Create(ctx, root+"/kid", nil, zkapi.Ephemeral); err != nil {
		t.Fatal(err)
	}
	if ev := mustWait(t, ctx, w); ev != (zkapi.Event{Type: zkapi.EventNodeChildrenChanged, Path: root}) {
		t.Errorf("child watch: %v", ev)
	}
	// Closing the other session deletes its ephemeral (docs/zk-semantics.md rule 8).
	_, ok, w, err := c.ExistsW(ctx, root+"/kid")
	if err != nil || !ok {
		t.Fatalf("ExistsW = %v, %v", ok, err)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	if ev := mustWait(t, ctx, w); ev != (zkapi.Event{Type: zkapi.EventNodeDeleted, Path: root + "/kid"}) {
		t.Errorf("exists watch on the other session's ephemeral: %v", ev)
	}
}

// docs/zk-semantics.md rule 14: getData and getChildren on a missing node return NoNode
// and set no watch.
func TestConn_WatchOnMissingNode(t *testing.T) {
	servers := standalone(t)
	root := newRoot(t, servers)
	c := dial(t, servers, gozk.Config{})
	ctx := testCtx(t)
	p := root + "/missing"
	_, _, w, err := c.GetW(ctx, p)
	checkErr(t, "GetW", err, zkapi.ErrNoNode, "get", p)
	if w != nil {
		t.Errorf("GetW on a missing node returned a watch")
	}
	_, _, w, err = c.ChildrenW(ctx, p)
	checkErr(t, "ChildrenW", err, zkapi.ErrNoNode, "children", p)
	if w != nil {
		t.Errorf("ChildrenW on a missing node returned a watch")
	}
}

// go-zookeeper rejects malformed paths before sending (ErrInvalidPath); the
// server gives BadArguments for the special nodes (docs/zk-semantics.md rules 1, 3).
func TestConn_BadPath(t *testing.T) {
	servers := standalone(t)
	c := dial(t, servers, gozk.Config{})
	ctx := testCtx(t)
	for _, p := range []string{"", "relative", "/trailing/", "/double//slash", "/nul\x00", "/ctl\x01", "/dot/./x"} {
		_, err := c.Create(ctx, p, nil, zkapi.Persistent)
		checkErr(t, fmt.Sprintf("Create(%q)", p), err, zkapi.ErrBadArguments, "create", p)
		_, _, err = c.Exists(ctx, p)
		checkErr(t, fmt.Sprintf("Exists(%q)", p), err, zkapi.ErrBadArguments, "exists", p)
		_, _, err = c.Get(ctx, p)
		checkErr(t, fmt.Sprintf("Get(%q)", p), err, zkapi.ErrBadArguments, "get", p)
		_, _, _, err = c.ChildrenW(ctx, p)
		checkErr(t, fmt.Sprintf("ChildrenW(%q)", p), err, zkapi.ErrBadArguments, "children", p)
		checkErr(t, fmt.Sprintf("Delete(%q)", p), c.Delete(ctx, p, -1), zkapi.ErrBadArguments, "delete", p)
	}
	for _, p := range []string{"/", "/zookeeper"} {
		checkErr(t, fmt.Sprintf("Delete(%q)", p), c.Delete(ctx, p, -1), zkapi.ErrBadArguments, "delete", p)
	}
}

func TestConn_Multi(t *testing.T) {
	servers := standalone(t)
	root := newRoot(t, servers)
	c := dial(t, servers, gozk.Config{})
	ctx := testCtx(t)
	a, b := root+"/a", root+"/b"
	res, err := c.Multi(ctx,
		zkapi.CreateOp{Path: a, Data: []byte("x"), Mode: zkapi.Persistent},
		zkapi.CreateOp{Path: root + "/s-", Mode: zkapi.EphemeralSequential},
		zkapi.SetOp{Path: a, Data: []byte("yy"), Version: 0},
		zkapi.CheckOp{Path: a, Version: 1},
		zkapi.CreateOp{Path: b, Mode: zkapi.Persistent},
		zkapi.DeleteOp{Path: b, Version: 0},
	)
	if err != nil {
		t.Fatalf("Multi: %v", err)
	}
	if len(res) != 6 || res[0].Path != a || !isSequentialName(res[1].Path, root+"/s-") ||
		res[2].Stat.Version != 1 || res[2].Stat.DataLength != 2 || res[4].Path != b {
		t.Fatalf("Multi results %+v", res)
	}
	for i, r := range res {
		if r.Err != nil {
			t.Errorf("op %d: %v", i, r.Err)
		}
	}
	// docs/zk-semantics.md rule 12: all ops of one multi share one zxid.
	if st := res[2].Stat; st.Czxid != st.Mzxid {
		t.Errorf("create and set in one multi: czxid %d, mzxid %d", st.Czxid, st.Mzxid)
	}
}

// docs/zk-semantics.md rule 23. Observed on 3.8.0 with go-zookeeper v1.0.4: the reply
// header carries no error, so there is a result per op: OK (nil) before the
// failing op, its code, then RuntimeInconsistency (-2, which go-zookeeper
// reports as "unknown error: -2"). Nothing is applied.
func TestConn_MultiFailure(t *testing.T) {
	servers := standalone(t)
	root := newRoot(t, servers)
	c := dial(t, servers, gozk.Config{})
	ctx := testCtx(t)
	a := root + "/a"
	res, err := c.Multi(ctx,
		zkapi.CreateOp{Path: a, Mode: zkapi.Persistent},
		zkapi.CheckOp{Path: root + "/missing", Version: zkapi.AnyVersion},
		zkapi.SetOp{Path: a, Version: zkapi.AnyVersion},
	)
	checkErr(t, "Multi", err, zkapi.ErrNoNode, "multi", root+"/missing")
	want := []zkapi.OpResult{{}, {Err: zkapi.ErrNoNode}, {Err: zkapi.ErrRuntimeInconsistency}}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("results %v, want %v", res, want)
	}
	if _, ok, err := c.Exists(ctx, a); err != nil || ok {
		t.Errorf("Exists(%s) after failed multi = %v, %v; want nothing applied", a, ok, err)
	}

	// A malformed path inside a multi is not validated by go-zookeeper;
	// the server answers BadArguments for it, with a result.
	res, err = c.Multi(ctx, zkapi.CreateOp{Path: "relative", Mode: zkapi.Persistent})
	checkErr(t, "Multi with a bad path", err, zkapi.ErrBadArguments, "multi", "relative")
	if !reflect.DeepEqual(res, []zkapi.OpResult{{Err: zkapi.ErrBadArguments}}) {
		t.Errorf("results %v", res)
	}
}

// Observed: with the container flag on a plain create inside a multi, the
// 3.8.0 server creates the node and answers with a createContainer result
// that go-zookeeper v1.0.4 cannot decode (it returns ErrAPIError and no
// results though the node exists). The adapter refuses such ops up front.
func TestConn_MultiContainerRefused(t *testing.T) {
	servers := standalone(t)
	root := newRoot(t, servers)
	c := dial(t, servers, gozk.Config{})
	ctx := testCtx(t)
	p := root + "/c"
	res, err := c.Multi(ctx, zkapi.CreateOp{Path: p, Mode: zkapi.Container})
	checkErr(t, "Multi", err, zkapi.ErrBadArguments, "multi", p)
	if res != nil {
		t.Errorf("results %v, want none", res)
	}
	if _, ok, err := c.Exists(ctx, p); err != nil || ok {
		t.Errorf("Exists = %v, %v; want nothing sent", ok, err)
	}
	if res, err := c.Multi(ctx); err != nil || len(res) != 0 {
		t.Errorf("empty Multi = %v, %v", res, err)
	}
}

func TestConn_ContextDoneSendsNothing(t *testing.T) {
	servers := standalone(t)
	root := newRoot(t, servers)
	c := dial(t, servers, gozk.Config{})
	done, cancel := context.WithCancel(context.Background())
	cancel()
	p := root + "/n"
	_, err := c.Create(done, p, nil, zkapi.Persistent)
	checkErr(t, "Create", err, context.Canceled, "create", p)
	_, _, _, err = c.ExistsW(done, p)
	checkErr(t, "ExistsW", err, context.Canceled, "exists", p)
	_, err = c.Multi(done, zkapi.CreateOp{Path: p})
	checkErr(t, "Multi", err, context.Canceled, "multi", "")
	if _, ok, err := c.Exists(testCtx(t), p); err != nil || ok {
		t.Errorf("Exists = %v, %v; want nothing created", ok, err)
	}
	if _, err := c.WaitSession(done, c.Session().Seq); !errors.Is(err, context.Canceled) {
		t.Errorf("WaitSession = %v, want context.Canceled", err)
	}
}

// After Close: pending watches end with NotWatching and ErrClosed, the
// session is Closed, every call fails with ErrClosed.
func TestConn_Close(t *testing.T) {
	servers := standalone(t)
	root := newRoot(t, servers)
	c := dial(t, servers, gozk.Config{})
	ctx := testCtx(t)
	before := c.Session()
	_, _, w, err := c.ExistsW(ctx, root+"/never")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	want := zkapi.Event{Type: zkapi.EventNotWatching, Path: root + "/never", Err: zkapi.ErrClosed}
	if ev := mustWait(t, ctx, w); ev != want {
		t.Errorf("pending watch: %v, want %v", ev, want)
	}
	s := c.Session()
	if s.ID != before.ID || s.State != zkapi.StateClosed || s.Seq != before.Seq+1 {
		t.Errorf("session after Close %v, before %v", s, before)
	}
	if next := nextSession(t, ctx, c, before); next != s {
		t.Errorf("WaitSession(%d) = %v, want %v", before.Seq, next, s)
	}
	if _, err := c.WaitSession(ctx, s.Seq); !errors.Is(err, zkapi.ErrClosed) {
		t.Errorf("WaitSession after Closed = %v, want ErrClosed", err)
	}
	_, err = c.Create(ctx, root+"/x", nil, zkapi.Persistent)
	checkErr(t, "Create", err, zkapi.ErrClosed, "create", root+"/x")
	_, _, err = c.Get(ctx, root)
	checkErr(t, "Get", err, zkapi.ErrClosed, "get", root)
	_, err = c.Multi(ctx)
	checkErr(t, "Multi", err, zkapi.ErrClosed, "multi", "")
	checkErr(t, "Sync", c.Sync(ctx, root), zkapi.ErrClosed, "sync", root)
	if err := c.Close(); !errors.Is(err, zkapi.ErrClosed) {
		t.Errorf("second Close = %v, want ErrClosed", err)
	}
}

// Requests cut off by a concurrent Close fail with ErrClosed, not
// ErrConnectionLoss: the client, not the link, ended them.
func TestConn_CloseDuringRequests(t *testing.T) {
	servers := standalone(t)
	root := newRoot(t, servers)
	c := dial(t, servers, gozk.Config{})
	ctx := testCtx(t)
	const workers = 8
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				if _, _, err := c.Get(ctx, root); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, zkapi.ErrClosed) {
			t.Errorf("request during Close: %v, want ErrClosed", err)
		}
	}
}
