package fakezk_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/zkapi"
)

// docs/zk-semantics.md rule 21, bug scenario 1: a create applied whose reply is lost
// reaches the caller as connection loss, with the node in place; the
// session survives, and watches are re-registered on reconnect and fire.
func TestConn_LoseReplyAppliesCreate(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	c := connect(t, srv, fakezk.ConnOptions{})
	other := connect(t, srv, fakezk.ConnOptions{})
	mustCreate(t, c, "/lock", zkapi.Persistent)
	w := existsW(t, c, "/lock/watched")
	sess := c.Session()
	srv.Intercept(func(_ fakezk.State, req fakezk.Request) fakezk.Fault {
		if req.Op == "create" && strings.HasPrefix(req.Path, "/lock/n-") {
			return fakezk.LoseReply
		}
		return fakezk.Deliver
	})
	_, err := c.Create(ctx, "/lock/n-", nil, zkapi.EphemeralSequential)
	srv.Intercept(nil)
	if !errors.Is(err, zkapi.ErrConnectionLoss) {
		t.Fatalf("create with lost reply: %v, want ConnectionLoss", err)
	}
	kids, _, err := c.Children(ctx, "/lock")
	if err != nil {
		t.Fatal(err)
	}
	if len(kids) != 1 || kids[0] != "n-0000000000" {
		t.Fatalf("children after lost reply: %v, want the applied node", kids)
	}
	if s := c.Session(); s.ID != sess.ID || s.State != zkapi.StateConnected || s.Seq != sess.Seq+2 {
		t.Fatalf("session after connection loss: %v, want same id, Disconnected then Connected", s)
	}
	mustCreate(t, other, "/lock/watched", zkapi.Persistent)
	if ev, ok := fired(t, w); !ok || ev.Type != zkapi.EventNodeCreated {
		t.Fatalf("watch after reconnect: %v %v", ev, ok)
	}
}

// A request lost before the server sees it is not applied.
func TestConn_LoseRequestAppliesNothing(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	c := connect(t, srv, fakezk.ConnOptions{})
	srv.Intercept(func(fakezk.State, fakezk.Request) fakezk.Fault { return fakezk.LoseRequest })
	_, err := c.Create(ctx, "/x", nil, zkapi.Persistent)
	srv.Intercept(nil)
	if !errors.Is(err, zkapi.ErrConnectionLoss) {
		t.Fatalf("got %v", err)
	}
	if _, ok, _ := c.Exists(ctx, "/x"); ok {
		t.Fatal("lost request was applied")
	}
}

// docs/zk-semantics.md rule 4: oversized frames drop the connection, nothing applied,
// the session survives (the boundary itself is checked against the real
// server in internal/conformance, sizes.txt).
func TestMachine_OversizedFrame(t *testing.T) {
	srv := newServer(t, fakezk.Config{MaxFrame: 100})
	c := connect(t, srv, fakezk.ConnOptions{})
	id := c.Session().ID
	_, err := c.Create(ctx, "/big", make([]byte, 100), zkapi.Persistent)
	if !errors.Is(err, zkapi.ErrConnectionLoss) {
		t.Fatalf("got %v", err)
	}
	if _, ok, _ := c.Exists(ctx, "/big"); ok || c.Session().ID != id {
		t.Fatal("oversized create applied or session lost")
	}
}

// docs/zk-semantics.md rule 23: on failure nothing is applied; earlier ops report OK,
// the failing op its code, later ops RuntimeInconsistency. All ops of a
// multi share one zxid (12).
func TestMulti_PerOpResults(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	c := connect(t, srv, fakezk.ConnOptions{})
	res, err := c.Multi(ctx,
		zkapi.CreateOp{Path: "/a"}, zkapi.CheckOp{Path: "/nope", Version: -1},
		zkapi.CreateOp{Path: "/b"})
	if !errors.Is(err, zkapi.ErrNoNode) {
		t.Fatalf("multi error %v, want NoNode", err)
	}
	want := []error{nil, zkapi.ErrNoNode, zkapi.ErrRuntimeInconsistency}
	for i, r := range res {
		if !errors.Is(r.Err, want[i]) || (want[i] == nil && r.Err != nil) {
			t.Errorf("op %d: %v, want %v", i, r.Err, want[i])
		}
	}
	if _, ok, _ := c.Exists(ctx, "/a"); ok {
		t.Fatal("failed multi left /a")
	}
	if _, err := c.Multi(ctx, zkapi.CreateOp{Path: "/a"}, zkapi.CreateOp{Path: "/b"}); err != nil {
		t.Fatal(err)
	}
	a, _, _ := c.Exists(ctx, "/a")
	b, _, _ := c.Exists(ctx, "/b")
	if a.Czxid != b.Czxid {
		t.Fatalf("ops of one multi got zxids %d and %d", a.Czxid, b.Czxid)
	}
	if _, err := c.Multi(ctx, nil); !errors.Is(err, zkapi.ErrBadArguments) {
		t.Fatalf("nil op: %v", err)
	}
}

// Containers are reaped once they have had children and have none.
func TestMachine_ReapContainers(t *testing.T) {
	srv := newServer(t, fakezk.Config{ContainerCheckTicks: 2})
	c := connect(t, srv, fakezk.ConnOptions{})
	mustCreate(t, c, "/fresh", zkapi.Container)
	mustCreate(t, c, "/used", zkapi.Container)
	mustCreate(t, c, "/used/x", zkapi.Persistent)
	w := existsW(t, c, "/used")
	if err := c.Delete(ctx, "/used/x", -1); err != nil {
		t.Fatal(err)
	}
	srv.Tick(1)
	if _, ok := fired(t, w); ok {
		t.Fatal("reaped before the check interval")
	}
	srv.Tick(1)
	if ev, ok := fired(t, w); !ok || ev.Type != zkapi.EventNodeDeleted {
		t.Fatalf("used empty container not reaped: %v", ev)
	}
	if _, ok, _ := c.Exists(ctx, "/fresh"); !ok {
		t.Fatal("a container that never had children was reaped")
	}
}

// An Interceptor sees who sends what, and the state before the request
// reaches it: here the node the lost delete would remove is still there.
func TestInterceptor_SeesRequestAndState(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	c := connect(t, srv, fakezk.ConnOptions{})
	mustCreate(t, c, "/gone", zkapi.Persistent)
	id := c.Session().ID
	var seen []string
	srv.Intercept(func(st fakezk.State, req fakezk.Request) fakezk.Fault {
		_, _, exists := st.Node(req.Path)
		seen = append(seen, fmt.Sprintf("%v %s %s %q exists=%v alive=%v",
			req.Session == id, req.Op, req.Path, req.Record.String(), exists, st.Alive(req.Session)))
		return fakezk.LoseReply
	})
	err := c.Delete(ctx, "/gone", -1)
	srv.Intercept(nil)
	want := []string{`true delete /gone "delete /gone v=-1" exists=true alive=true`}
	if !errors.Is(err, zkapi.ErrConnectionLoss) || !slices.Equal(seen, want) {
		t.Fatalf("delete: %v, interceptor saw %q, want ConnectionLoss and %q", err, seen, want)
	}
	if _, ok, _ := c.Exists(ctx, "/gone"); ok {
		t.Fatal("the delete whose reply was lost was not applied")
	}
}
