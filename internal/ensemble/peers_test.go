package ensemble_test

import (
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/ensemble"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// srvr is addr's whole srvr answer: a member that lost its quorum says
// it is not serving.
func srvr(addr string) string {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err.Error()
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Second))
	io.WriteString(conn, "srvr")
	out, _ := io.ReadAll(conn)
	return string(out)
}

// quorum reports whether modes are one leader and followers, the leader
// not old: a quorum formed without it (old -1: any).
func quorum(modes []string, old int) (int, bool) {
	leader, followers := -1, 0
	for i, m := range modes {
		switch {
		case m == "leader" && leader < 0:
			leader = i
		case m == "follower":
			followers++
		}
	}
	return leader, leader >= 0 && leader != old && followers >= 1
}

// An isolated leader loses its quorum and stops serving, the two others
// elect a new leader among themselves and take writes; healed, the old
// leader rejoins as a follower and all three serve. The links between
// members pass through the ensemble's relays, election call-backs
// included: were one direct, the old leader would still be elected.
func TestEnsemble_IsolateLeader(t *testing.T) {
	installed(t)
	e := start(t, ensemble.Options{N: 3})
	ctx := zktest.Context(t, time.Minute)
	old, err := e.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if err := e.Isolate(old); err != nil {
		t.Fatal(err)
	}
	var next int
	await(t, "a new leader elected without the isolated one", func() bool {
		l, ok := quorum(modes(e), old)
		next = l
		return ok
	})
	t.Logf("member %d isolated: member %d leads after %v", old, next, time.Since(began))
	// The old leader steps down once it sees no quorum of followers
	// (within a tick or two): until then two members say leader, and the
	// old one can commit nothing.
	await(t, "the isolated old leader not serving", func() bool {
		return strings.Contains(srvr(e.Addrs()[old]), "not currently serving")
	})
	t.Logf("member %d stopped serving after %v", old, time.Since(began))
	c := zktest.Dial(t, ctx, []string{e.Addrs()[next]}, gozk.Config{})
	if _, err := c.Create(ctx, "/after-isolation", nil, zkapi.Persistent); err != nil {
		t.Errorf("a write through the new leader, member %d: %v", next, err)
	}
	if err := e.Heal(old); err != nil {
		t.Fatal(err)
	}
	began = time.Now()
	await(t, "all three serving again", func() bool {
		ms := modes(e)
		_, ok := quorum(ms, -1)
		return ok && ms[old] == "follower" && strings.Count(strings.Join(ms, ","), "follower") == 2
	})
	t.Logf("healed: all three serve after %v", time.Since(began))
}

// A lagging follower stays in the quorum but hears nothing from its
// leader: a write made through the leader succeeds, and a plain read on
// the follower still returns the old value (a stale read) until the
// leader's stream is released; then sync and read see the new value,
// and the follower still follows.
func TestEnsemble_LagFollower(t *testing.T) {
	installed(t)
	e := start(t, ensemble.Options{N: 3})
	ctx := zktest.Context(t, time.Minute)
	leader, err := e.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f := (leader + 1) % 3
	lc := zktest.Dial(t, ctx, []string{e.Addrs()[leader]}, gozk.Config{})
	fc := zktest.Dial(t, ctx, []string{e.Addrs()[f]}, gozk.Config{})
	if _, err := lc.Create(ctx, "/lag", []byte("old"), zkapi.Persistent); err != nil {
		t.Fatal(err)
	}
	if err := fc.Sync(ctx, "/lag"); err != nil {
		t.Fatal(err)
	}
	const lag = time.Second
	if err := e.Lag(f, lag); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if _, err := lc.Set(ctx, "/lag", []byte("new"), -1); err != nil {
		t.Fatalf("a write through the leader while member %d lags: %v", f, err)
	}
	got, _, err := fc.Get(ctx, "/lag")
	if err != nil || string(got) != "old" {
		t.Errorf("a read on the lagging follower: %q, %v; want the stale %q", got, err, "old")
	}
	if held := time.Since(began); held >= lag {
		t.Fatalf("the write and read took %v, past the lag: the read proves nothing", held)
	}
	if err := fc.Sync(ctx, "/lag"); err != nil {
		t.Fatal(err)
	}
	if got, _, err := fc.Get(ctx, "/lag"); err != nil || string(got) != "new" {
		t.Errorf("after the lag and a sync: %q, %v; want %q", got, err, "new")
	}
	if m := srvrMode(e.Addrs()[f]); m != "follower" {
		t.Errorf("member %d after its lag: mode %q, want follower (it must stay in the quorum)", f, m)
	}
}

// Peer links need peers, and a lag is bounded by what the quorum
// tolerates.
func TestEnsemble_PeerOpsRefused(t *testing.T) {
	installed(t)
	e := start(t, ensemble.Options{N: 1})
	for name, err := range map[string]error{"Isolate": e.Isolate(0), "Heal": e.Heal(0), "Lag": e.Lag(0, time.Second)} {
		if !errors.Is(err, ensemble.ErrNoPeers) {
			t.Errorf("%s on a standalone server: %v, want ErrNoPeers", name, err)
		}
	}
	if err := e.Lag(0, ensemble.MaxLag+time.Millisecond); !errors.Is(err, ensemble.ErrBadOptions) {
		t.Errorf("Lag past MaxLag: %v, want ErrBadOptions", err)
	}
	if err := e.Isolate(1); !errors.Is(err, ensemble.ErrBadIndex) {
		t.Errorf("Isolate(1) of 1 member: %v, want ErrBadIndex", err)
	}
}
