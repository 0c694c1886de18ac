package gozk_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// persistentTargets runs f on fakezk over TCP and, when one is
// configured, on the real server: go-zookeeper v1.0.4 cannot send
// addWatch, and the adapter's shim must work on both.
func persistentTargets(t *testing.T, f func(t *testing.T, servers []string)) {
	t.Run("serve", func(t *testing.T) {
		_, addr := zktest.ServeFake(t, netserver.Config{Machine: machine.Config{TickMillis: 500}})
		f(t, []string{addr})
	})
	t.Run("real", func(t *testing.T) { f(t, standalone(t)) })
}

// events takes n events from w.
func events(t *testing.T, ctx context.Context, w zkapi.PersistentWatch, n int) string {
	t.Helper()
	var out []string
	for range n {
		ev, err := w.Next(ctx)
		if err != nil {
			t.Fatalf("Next after %q: %v", out, err)
		}
		out = append(out, ev.Type.String()+" "+ev.Path[strings.LastIndexByte(ev.Path, '/'):])
	}
	return strings.Join(out, "; ")
}

func TestConn_AddWatchThroughTheShim(t *testing.T) {
	persistentTargets(t, func(t *testing.T, servers []string) {
		ctx := testCtx(t)
		root := newRoot(t, servers)
		var d cutDialer
		a := dial(t, servers, gozk.Config{Dialer: d.Dial})
		b := dial(t, servers, gozk.Config{})
		rec, err := a.AddWatch(ctx, root, true)
		if err != nil {
			t.Fatal(err)
		}
		per, err := a.AddWatch(ctx, root, false) // the last one set decides: persistent
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Create(ctx, root+"/x", nil, zkapi.Persistent); err != nil {
			t.Fatal(err)
		}
		if got, want := events(t, ctx, per, 1), "NodeChildrenChanged /"+root[1:]; got != want {
			t.Errorf("persistent: %s, want %s", got, want)
		}
		if err := per.Remove(ctx); err != nil { // rec still watches the path: nothing sent
			t.Fatal(err)
		}
		rec2, err := a.AddWatch(ctx, root, true) // recursive again on the server
		if err != nil {
			t.Fatal(err)
		}
		s := a.Session()
		d.Disconnect()
		for s.State == zkapi.StateConnected {
			s = nextSession(t, ctx, a, s)
		}
		d.Reconnect()
		for s.State != zkapi.StateConnected {
			s = nextSession(t, ctx, a, s)
		}
		// The watch went out again before a's first request: a round
		// trip proves the server has it, before b's write, which travels
		// on another connection.
		if _, _, err := a.Exists(ctx, root); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Create(ctx, root+"/x/y", nil, zkapi.Persistent); err != nil {
			t.Fatal(err)
		}
		if got, want := events(t, ctx, rec2, 1), "NodeCreated /y"; got != want {
			t.Errorf("recursive after reconnect: %s, want %s", got, want)
		}
		if got, want := events(t, ctx, rec, 1), "NodeCreated /y"; got != want {
			t.Errorf("first recursive handle: %s, want %s", got, want)
		}
		if err := rec.Remove(ctx); err != nil {
			t.Fatal(err)
		}
		if err := rec2.Remove(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Create(ctx, root+"/x/z", nil, zkapi.Persistent); err != nil {
			t.Fatal(err)
		}
		if err := a.Sync(ctx, root); err != nil {
			t.Fatal(err)
		}
		ev, err := rec2.Next(ctx)
		if err != nil || !errors.Is(ev.Err, zkapi.ErrNoWatcher) {
			t.Errorf("after Remove: %v %v, want NotWatching (ErrNoWatcher)", ev, err)
		}
		last, err := a.AddWatch(ctx, root, false)
		if err != nil {
			t.Fatal(err)
		}
		a.Close()
		done, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if ev, err := last.Next(done); err != nil || !errors.Is(ev.Err, zkapi.ErrClosed) {
			t.Errorf("after Close: %v %v, want NotWatching (ErrClosed)", ev, err)
		}
	})
}
