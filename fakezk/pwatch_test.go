package fakezk_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/fakehook"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/zkapi"
)

// drain takes every event queued on w without waiting.
func drain(t *testing.T, w zkapi.PersistentWatch) string {
	t.Helper()
	done, cancel := context.WithCancel(ctx)
	cancel()
	var out []string
	for {
		ev, err := w.Next(done)
		if err != nil {
			return strings.Join(out, "; ")
		}
		out = append(out, ev.String())
		if ev.Type == zkapi.EventNotWatching {
			return strings.Join(out, "; ")
		}
	}
}

func addWatch(t *testing.T, c zkapi.Conn, path string, recursive bool) zkapi.PersistentWatch {
	t.Helper()
	w, err := c.(zkapi.PersistentWatcher).AddWatch(ctx, path, recursive)
	if err != nil {
		t.Fatalf("addwatch %s: %v", path, err)
	}
	return w
}

func expect(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n got %s\nwant %s", what, got, want)
	}
}

// The events are those ZooKeeper 3.8.0 sent in the raw cases "persistent
// watch: ..." and "recursive watch: ..." (internal/netserver).
func TestConn_PersistentWatchSeesItsNodeUntilRemoved(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	a, b := connect(t, srv, fakezk.ConnOptions{}), connect(t, srv, fakezk.ConnOptions{})
	w := addWatch(t, a, "/p", false)
	mustCreate(t, b, "/p", zkapi.Persistent)
	mustCreate(t, b, "/p/a", zkapi.Persistent)
	b.Set(ctx, "/p", []byte("x"), -1)
	b.Set(ctx, "/p/a", []byte("y"), -1)
	b.Delete(ctx, "/p/a", -1)
	b.Delete(ctx, "/p", -1)
	mustCreate(t, b, "/p", zkapi.Persistent)
	expect(t, "events", drain(t, w), "NodeCreated /p; NodeChildrenChanged /p; NodeDataChanged /p; "+
		"NodeChildrenChanged /p; NodeDeleted /p; NodeCreated /p")
	if err := w.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	b.Set(ctx, "/p", []byte("z"), -1)
	expect(t, "after Remove", drain(t, w), "NotWatching /p (zkapi: no such watcher)")
	if err := a.Sync(ctx, "/"); err != nil {
		t.Fatal(err)
	}
	var n int
	id := a.Session().ID
	fakehook.Inspect(srv, func(m *machine.Machine) { n = m.SessionWatchCount(id) })
	if n != 0 {
		t.Errorf("the server keeps %d watches after Remove", n)
	}
}

func TestConn_RecursiveWatchSeesDescendantsButNoChildrenChanged(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	a, b := connect(t, srv, fakezk.ConnOptions{}), connect(t, srv, fakezk.ConnOptions{})
	w := addWatch(t, a, "/p", true)
	mustCreate(t, b, "/p", zkapi.Persistent)
	mustCreate(t, b, "/p/a", zkapi.Persistent)
	mustCreate(t, b, "/p/a/b", zkapi.Ephemeral)
	mustCreate(t, b, "/pq", zkapi.Persistent) // not below /p
	b.Set(ctx, "/p/a", []byte("x"), -1)
	b.Close() // its ephemeral goes
	expect(t, "events", drain(t, w), "NodeCreated /p; NodeCreated /p/a; NodeCreated /p/a/b; "+
		"NodeDataChanged /p/a; NodeDeleted /p/a/b")
}

func TestConn_PersistentWatchAndAOneShotWatchGetOneEventEach(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	a, b := connect(t, srv, fakezk.ConnOptions{}), connect(t, srv, fakezk.ConnOptions{})
	mustCreate(t, b, "/p", zkapi.Persistent)
	w := addWatch(t, a, "/p", false)
	_, _, once, err := a.GetW(ctx, "/p")
	if err != nil {
		t.Fatal(err)
	}
	b.Set(ctx, "/p", []byte("1"), -1)
	b.Set(ctx, "/p", []byte("2"), -1) // the GetW made /p's data watch one-shot: nothing
	mustCreate(t, b, "/p/c", zkapi.Persistent)
	ev, err := once.Wait(ctx)
	expect(t, "one-shot", fmt.Sprint(ev, err), "NodeDataChanged /p <nil>")
	// Measured on 3.8.0: raw case "persistent watch then standard data
	// watch on one node".
	expect(t, "persistent", drain(t, w), "NodeDataChanged /p; NodeChildrenChanged /p")
}

func TestConn_PersistentWatchSurvivesReconnectButMissesWhatHappenedMeanwhile(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	a, b := connect(t, srv, fakezk.ConnOptions{}), connect(t, srv, fakezk.ConnOptions{})
	mustCreate(t, b, "/p", zkapi.Persistent)
	w := addWatch(t, a, "/p", true)
	if err := srv.Disconnect(a.Session().ID); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, b, "/p/missed", zkapi.Persistent)
	if err := srv.Reconnect(a.Session().ID); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, b, "/p/seen", zkapi.Persistent)
	// Measured on 3.8.0: raw case "setWatches2 fires nothing for
	// persistent watches on changed nodes".
	expect(t, "events", drain(t, w), "NodeCreated /p/seen")
}

func TestConn_PersistentWatchEndsWithTheSession(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	a := connect(t, srv, fakezk.ConnOptions{})
	w := addWatch(t, a, "/p", false)
	if err := srv.Expire(a.Session().ID); err != nil {
		t.Fatal(err)
	}
	expect(t, "after expiry", drain(t, w), "NotWatching /p (zkapi: session expired)")
	w2 := addWatch(t, a, "/p", false)
	a.Close()
	expect(t, "after Close", drain(t, w2), "NotWatching /p (zkapi: connection closed by client)")
	if _, err := a.AddWatch(ctx, "/p", false); !errors.Is(err, zkapi.ErrClosed) {
		t.Errorf("AddWatch after Close: %v, want ErrClosed", err)
	}
}

func TestConn_RecursiveWatchSeesAContainerReaped(t *testing.T) {
	srv := newServer(t, fakezk.Config{ContainerCheckTicks: 1})
	a, b := connect(t, srv, fakezk.ConnOptions{}), connect(t, srv, fakezk.ConnOptions{})
	mustCreate(t, b, "/c", zkapi.Container)
	mustCreate(t, b, "/c/x", zkapi.Persistent)
	w := addWatch(t, a, "/", true)
	b.Delete(ctx, "/c/x", -1)
	srv.Tick(1)
	expect(t, "events", drain(t, w), "NodeDeleted /c/x; NodeDeleted /c")
}

func TestConn_NextWaitsForAnEvent(t *testing.T) {
	srv := newServer(t, fakezk.Config{})
	a, b := connect(t, srv, fakezk.ConnOptions{}), connect(t, srv, fakezk.ConnOptions{})
	w := addWatch(t, a, "/p", false)
	got := make(chan string)
	go func() {
		ev, err := w.Next(ctx)
		got <- fmt.Sprint(ev, err)
	}()
	if err := srv.WaitUntil(ctx, func(fakezk.State) bool { return true }); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, b, "/p", zkapi.Persistent)
	expect(t, "Next", <-got, "NodeCreated /p <nil>")
}
