package election_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/zksim/zksim/election"
	"github.com/zksim/zksim/expire"
	"github.com/zksim/zksim/internal/locktest"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
	"github.com/zksim/zksim/zktest"
)

// These tests run the election on real servers (see package zktest for
// the environment variables; they skip without them). Each candidate has
// a session of its own, as separate processes would.

// TestElection_RealContention: 4 sessions share 40 leaderships. Each grant
// must carry a term above the last and find the earlier leaders already
// resigned; each leader makes a version-checked fenced write of its term,
// which must land over a lower one. The directory ends empty.
func TestElection_RealContention(t *testing.T) {
	addrs := zktest.Standalone(t)
	ctx := zktest.Context(t, 2*time.Minute)
	admin := zktest.Dial(t, ctx, addrs, gozk.Config{})
	root := zktest.Root(t, ctx, admin, "/zksim-election-test-")
	dir, fence := root+"/election", root+"/fence"
	if _, err := admin.Create(ctx, fence, []byte("0"), zkapi.Persistent); err != nil {
		t.Fatal(err)
	}
	conns := zktest.DialN(t, ctx, addrs, 4, gozk.Config{})
	var (
		mu       sync.Mutex
		granted  int
		lastTerm int64
		active   = map[*election.Leadership]string{}
	)
	const total = 40
	start := time.Now()
	errs := locktest.RunAll(ctx, len(conns), func(ctx context.Context, i int) error {
		e, err := election.New(conns[i], dir, election.Options{ID: "c" + strconv.Itoa(i)})
		if err != nil {
			return err
		}
		for {
			mu.Lock()
			enough := granted >= total
			mu.Unlock()
			if enough {
				return nil
			}
			l, err := e.Campaign(ctx)
			if err != nil {
				return err
			}
			mu.Lock()
			if l.Term() <= lastTerm {
				t.Errorf("%s leads with term %d, not above %d", e.ID(), l.Term(), lastTerm)
			}
			for o, who := range active {
				if o.Check() == nil {
					t.Errorf("%s leads while %s does", e.ID(), who)
				}
			}
			lastTerm = l.Term()
			granted++
			active[l] = e.ID()
			mu.Unlock()
			data, st, err := conns[i].Get(ctx, fence)
			if err != nil {
				return err
			}
			prev, _ := strconv.ParseInt(string(data), 10, 64)
			if prev >= l.Term() {
				t.Errorf("fence holds term %d before leader of term %d writes", prev, l.Term())
			}
			if _, err := l.Fenced(ctx, zkapi.SetOp{Path: fence, Data: locktest.FormatInt(l.Term()), Version: st.Version}); err != nil {
				return err
			}
			if err := l.Resign(ctx); err != nil {
				return err
			}
			mu.Lock()
			delete(active, l)
			mu.Unlock()
		}
	})
	for _, err := range errs {
		t.Error(err)
	}
	elapsed := time.Since(start)
	t.Logf("%d leaderships by %d sessions in %v (%v each)", granted, len(conns), elapsed, elapsed/time.Duration(max(granted, 1)))
	zktest.CloseAll(t, conns)
	locktest.NoChildren(t, ctx, admin, dir, "after every session closed")
}

// TestLeadership_RealSessionExpired: the leader's session is expired by
// the server (expire.Capture.Kill) while a second candidate waits. The
// old leader's Wait and Check report ErrLost, the second leads with a
// higher term, the old leader's fenced write is refused and its Resign
// reports ErrLost.
func TestLeadership_RealSessionExpired(t *testing.T) {
	addrs := zktest.Standalone(t)
	ctx := zktest.Context(t, time.Minute)
	admin := zktest.Dial(t, ctx, addrs, gozk.Config{})
	root := zktest.Root(t, ctx, admin, "/zksim-election-test-")
	dir, data := root+"/election", root+"/data"
	zktest.Create(t, ctx, admin, data)
	var capture expire.Capture
	connA := zktest.Dial(t, ctx, addrs, gozk.Config{SessionTimeout: 10 * time.Second, Dialer: capture.Dial})
	connB := zktest.Dial(t, ctx, addrs, gozk.Config{})
	ea, err := election.New(connA, dir, election.Options{ID: "stale"})
	if err != nil {
		t.Fatal(err)
	}
	eb, err := election.New(connB, dir, election.Options{ID: "next"})
	if err != nil {
		t.Fatal(err)
	}
	la, err := ea.Campaign(ctx)
	if err != nil {
		t.Fatalf("A: Campaign: %v", err)
	}
	waiting := zktest.Go(t, ctx, eb.Campaign)
	if err := locktest.WaitChildren(ctx, admin, dir, 2); err != nil {
		t.Fatal(err)
	}
	if err := capture.Kill(ctx, la.Session()); err != nil {
		t.Fatalf("Kill(%#x): %v", la.Session(), err)
	}
	if err := la.Wait(ctx); !errors.Is(err, election.ErrLost) {
		t.Fatalf("A: Wait after the kill = %v, want ErrLost", err)
	}
	if err := la.Check(); !errors.Is(err, election.ErrLost) {
		t.Errorf("A: Check after the kill = %v, want ErrLost", err)
	}
	lb := waiting.Receive(t, ctx, "B: Campaign")
	if lb.Term() <= la.Term() {
		t.Errorf("B's term %d not above A's %d", lb.Term(), la.Term())
	}
	if _, err := la.Fenced(ctx, zkapi.SetOp{Path: data, Data: []byte("stale"), Version: zkapi.AnyVersion}); !errors.Is(err, election.ErrLost) {
		t.Errorf("A: Fenced after the kill = %v, want ErrLost", err)
	}
	if _, err := lb.Fenced(ctx, zkapi.SetOp{Path: data, Data: []byte("fresh"), Version: zkapi.AnyVersion}); err != nil {
		t.Errorf("B: Fenced: %v", err)
	}
	if err := la.Resign(ctx); !errors.Is(err, election.ErrLost) {
		t.Errorf("A: Resign after the kill = %v, want ErrLost", err)
	}
	if err := lb.Resign(ctx); err != nil {
		t.Errorf("B: Resign: %v", err)
	}
	locktest.NoChildren(t, ctx, admin, dir, "after both resigned")
}
