package gozk

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/internal/sessionlog"
	"github.com/zksim/zksim/zkapi"
)

type step struct {
	st zk.State
	id int64
}

// feed runs go-zookeeper states through a fresh tracker and returns every
// snapshot after the first.
func feed(first zkapi.Session, steps ...step) []zkapi.Session {
	tr := newTracker(first)
	for _, s := range steps {
		tr.observe(s.st, s.id)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []zkapi.Session
	for s, ok := tr.hist.After(first.Seq); ok; s, ok = tr.hist.After(s.Seq) {
		out = append(out, s)
	}
	return out
}

func snap(id int64, st zkapi.State, seq uint64) zkapi.Session {
	return zkapi.Session{ID: id, State: st, Seq: seq}
}

var connecting = zkapi.Session{State: zkapi.StateConnecting}

func TestTracker_FirstSession(t *testing.T) {
	got := feed(connecting,
		step{zk.StateConnecting, 0}, step{zk.StateConnected, 0}, step{zk.StateHasSession, 7})
	want := []zkapi.Session{snap(7, zkapi.StateConnected, 1)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestTracker_ReconnectSameSession(t *testing.T) {
	got := feed(connecting,
		step{zk.StateHasSession, 7},
		step{zk.StateDisconnected, 7}, step{zk.StateConnecting, 7}, step{zk.StateConnected, 7},
		step{zk.StateHasSession, 7})
	want := []zkapi.Session{
		snap(7, zkapi.StateConnected, 1),
		snap(7, zkapi.StateDisconnected, 2),
		snap(7, zkapi.StateConnected, 3),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// The sequence go-zookeeper v1.0.4 reports when it reconnects to a server
// that expired the session (conn.go: authenticate, loop).
func TestTracker_Expiry(t *testing.T) {
	got := feed(connecting,
		step{zk.StateHasSession, 7},
		step{zk.StateDisconnected, 7}, step{zk.StateConnecting, 7}, step{zk.StateConnected, 7},
		step{zk.StateExpired, 0}, step{zk.StateDisconnected, 0},
		step{zk.StateConnecting, 0}, step{zk.StateConnected, 0}, step{zk.StateHasSession, 9})
	want := []zkapi.Session{
		snap(7, zkapi.StateConnected, 1),
		snap(7, zkapi.StateDisconnected, 2),
		snap(7, zkapi.StateExpired, 3),
		snap(9, zkapi.StateConnected, 4),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// go-zookeeper's event channel drops events when full; a new session ID
// still reports the old session's expiry first.
func TestTracker_ExpiryEventLost(t *testing.T) {
	got := feed(connecting, step{zk.StateHasSession, 7}, step{zk.StateHasSession, 9})
	want := []zkapi.Session{
		snap(7, zkapi.StateConnected, 1),
		snap(7, zkapi.StateExpired, 2),
		snap(9, zkapi.StateConnected, 3),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// A HasSession event read late from the channel, after go-zookeeper reset the
// ID for a second expiry, changes nothing; the Expired event follows it.
func TestTracker_StaleHasSession(t *testing.T) {
	if got := feed(connecting, step{zk.StateHasSession, 0}); len(got) != 0 {
		t.Errorf("got %v, want no change", got)
	}
}

func TestTracker_FrozenAndClosed(t *testing.T) {
	tr := newTracker(connecting)
	tr.observe(zk.StateHasSession, 7)
	tr.freeze()
	tr.observe(zk.StateDisconnected, 7)
	tr.close()
	tr.close()
	tr.observe(zk.StateHasSession, 8)
	if got, want := tr.session(), snap(7, zkapi.StateClosed, 2); got != want {
		t.Errorf("got %v, want %v", got, want)
	}
	s, err := tr.wait(context.Background(), 2)
	if !errors.Is(err, zkapi.ErrClosed) || s.State != zkapi.StateClosed {
		t.Errorf("wait after Closed = %v, %v; want Closed, ErrClosed", s, err)
	}
	if s, err := tr.wait(context.Background(), 1); err != nil || s.Seq != 2 {
		t.Errorf("wait(1) = %v, %v; want the Closed snapshot", s, err)
	}
}

func TestTracker_WaitStepsThroughHistory(t *testing.T) {
	tr := newTracker(connecting)
	tr.observe(zk.StateHasSession, 7)
	tr.observe(zk.StateExpired, 0)
	tr.observe(zk.StateHasSession, 9)
	ctx := context.Background()
	var got []zkapi.Session
	for seq := uint64(0); seq < 3; seq++ {
		s, err := tr.wait(ctx, seq)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	want := []zkapi.Session{
		snap(7, zkapi.StateConnected, 1), snap(7, zkapi.StateExpired, 2), snap(9, zkapi.StateConnected, 3),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestTracker_WaitFallenBehind(t *testing.T) {
	tr := newTracker(connecting)
	for i := range sessionlog.Len + 10 {
		tr.observe(zk.StateHasSession, int64(i+1))
	}
	s, err := tr.wait(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	latest := tr.session()
	if want := latest.Seq - sessionlog.Len + 1; s.Seq != want {
		t.Errorf("wait(0) = %v with %v the latest, want the oldest of the %d remembered, Seq %d", s, latest, sessionlog.Len, want)
	}
}

func TestTracker_WaitBlocksUntilChange(t *testing.T) {
	tr := newTracker(connecting)
	got := make(chan zkapi.Session, 1)
	go func() {
		s, _ := tr.wait(context.Background(), 0)
		got <- s
	}()
	tr.observe(zk.StateHasSession, 7)
	if s := <-got; s != snap(7, zkapi.StateConnected, 1) {
		t.Errorf("got %v", s)
	}
}

func TestTracker_WaitHonoursContext(t *testing.T) {
	tr := newTracker(connecting)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s, err := tr.wait(ctx, 0)
	if !errors.Is(err, context.Canceled) || s != connecting {
		t.Errorf("wait = %v, %v; want the current snapshot and context.Canceled", s, err)
	}
}

func TestWatch_ConcurrentWaitsSeeOneEvent(t *testing.T) {
	ch := make(chan zk.Event, 1)
	w := newWatch(ch)
	const n = 8
	var wg sync.WaitGroup
	got := make([]zkapi.Event, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = w.Wait(context.Background())
		}()
	}
	ch <- zk.Event{Type: zk.EventNodeDeleted, Path: "/a"}
	close(ch)
	wg.Wait()
	want := zkapi.Event{Type: zkapi.EventNodeDeleted, Path: "/a"}
	for i := range n {
		if got[i] != want || errs[i] != nil {
			t.Errorf("Wait %d = %v, %v; want %v", i, got[i], errs[i], want)
		}
	}
	if ev, err := w.Wait(context.Background()); ev != want || err != nil {
		t.Errorf("later Wait = %v, %v; want %v", ev, err, want)
	}
}

func TestWatch_WaitHonoursContext(t *testing.T) {
	w := newWatch(make(chan zk.Event))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := w.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait = %v, want context.Canceled", err)
	}
}

func TestWatch_ArrivedEventBeatsDoneContext(t *testing.T) {
	ch := make(chan zk.Event, 1)
	w := newWatch(ch)
	ch <- zk.Event{Type: zk.EventNodeCreated, Path: "/a"}
	close(ch)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for i := range 2 {
		if ev, err := w.Wait(ctx); err != nil || ev.Type != zkapi.EventNodeCreated {
			t.Errorf("Wait %d with a done ctx = %v, %v; want the event", i, ev, err)
		}
	}
}
