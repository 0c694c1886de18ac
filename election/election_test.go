package election_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/recipe"

	"github.com/zksim/zksim/election"
	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/fakehook"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/zkapi"
)

// Followers queue each with one data watch on its immediate predecessor
// and none on the directory; each Release hands leadership to the next
// candidate only, with a higher term. Counting wake-ups: every follower
// lists the directory exactly twice, once on joining and once when its
// predecessor resigned; a herd would list once per resign.
func TestCampaign_ResignHandsOverToNextOnly(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	leader := w.campaign(w.election(w.conn(), "a"))
	const n = 4
	followers := make([]*zktest.Async[*election.Leadership], n)
	sessions := make([]int64, n)
	prev := leader.Node()
	for i := range followers {
		c := w.conn()
		sessions[i] = c.Session().ID
		followers[i] = w.campaignAsync(w.ctx, w.election(c, "f"+string(rune('a'+i))))
		w.waitWatched(prev)
		kids := w.children()
		prev = dir + "/" + kids[len(kids)-1]
	}
	fakehook.Inspect(w.srv, func(m *machine.Machine) {
		if _, child := m.Watchers(0, dir); len(child) != 0 {
			t.Errorf("sessions %x watch the directory", child)
		}
		for _, k := range m.Children(dir) {
			if data, _ := m.Watchers(0, dir+"/"+k); len(data) > 1 {
				t.Errorf("%s has %d watchers, want at most 1", k, len(data))
			}
		}
	})
	for i, f := range followers {
		term := leader.Term()
		w.resign(leader)
		next, err := f.Wait(t, w.ctx)
		if err != nil {
			t.Fatalf("follower %d: %v", i, err)
		}
		for _, g := range followers[i+1:] {
			if g.Returned() {
				t.Fatalf("resign woke a follower out of turn")
			}
		}
		if next.Term() <= term {
			t.Fatalf("follower %d leads with term %d, not above %d", i, next.Term(), term)
		}
		leader = next
	}
	w.resign(leader)
	if kids := w.children(); len(kids) != 0 {
		t.Fatalf("nodes left: %v", kids)
	}
	for i, sid := range sessions {
		if got := w.listed(sid); got != 2 {
			t.Errorf("follower %d listed the directory %d times, want 2 (join, handover)", i, got)
		}
	}
}

// The leader's term is its node's czxid, and Leader reports the same
// leader, term and data to an observer that is not a candidate.
func TestElection_LeaderObserved(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	obs := w.election(w.conn(), "obs")
	if _, err := obs.Leader(w.ctx); !errors.Is(err, election.ErrNoLeader) {
		t.Fatalf("Leader before any candidate: %v, want ErrNoLeader", err)
	}
	first := zktest.Go(t, w.ctx, func(ctx context.Context) (election.Leader, error) { return obs.Observe(ctx, 0) })
	l := w.campaign(w.election(w.conn(), "a"))
	_, st, _ := node(w, l.Node())
	if l.Term() != st.Czxid {
		t.Fatalf("term %d, node czxid %d", l.Term(), st.Czxid)
	}
	seen := first.Receive(t, w.ctx, "Observe")
	ld, err := obs.Leader(w.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range []election.Leader{seen, ld} {
		if got.Node != l.Node() || got.Term != l.Term() || got.Session != l.Session() || string(got.Data) != "a" {
			t.Fatalf("observed %+v, leader %s term %d", got, l.Node(), l.Term())
		}
	}
	pb := w.campaignAsync(w.ctx, w.election(w.conn(), "b"))
	w.waitWatched(l.Node())
	next := zktest.Go(t, w.ctx, func(ctx context.Context) (election.Leader, error) { return obs.Observe(ctx, ld.Term) })
	w.resign(l)
	lb := pb.Receive(t, w.ctx, "Campaign")
	if got := next.Receive(t, w.ctx, "Observe"); got.Term != lb.Term() || got.Term <= ld.Term {
		t.Fatalf("next observed term %d, leader b's %d, old %d", got.Term, lb.Term(), ld.Term)
	}
	w.resign(lb)
}

// A create whose reply is lost is found again by its guid: no orphan, and
// the candidate leads on that node.
func TestCampaign_LostCreateReply(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	e := w.election(w.conn(), "a")
	w.resign(w.campaign(e)) // the directory exists from here
	w.Once(func(_ *machine.Machine, _ int64, req proto.Request) (fakezk.Fault, bool) {
		cr, ok := req.(proto.Create)
		return fakezk.LoseReply, ok && strings.HasPrefix(cr.Path, dir+"/cand-")
	})
	l := w.campaign(e)
	if kids := w.children(); len(kids) != 1 || dir+"/"+kids[0] != l.Node() {
		t.Fatalf("after a lost create reply: children %v, leader %s", kids, l.Node())
	}
	w.resign(l)
	if kids := w.children(); len(kids) != 0 {
		t.Fatalf("orphan left: %v", kids)
	}
}

// A follower that gives up (its ctx ends) removes its node even when the
// delete's request and then its reply are lost, and the follower behind
// it moves up to watch the leader; a Release whose delete is lost still
// removes the leader's node.
func TestCampaign_CancelCleansUpThroughConnectionLoss(t *testing.T) {
	for _, fault := range []fakezk.Fault{fakezk.LoseRequest, fakezk.LoseReply} {
		w := newWorld(t, fakezk.Config{})
		la := w.campaign(w.election(w.conn(), "a"))
		bctx, cancelB := context.WithCancel(w.ctx)
		pb := w.campaignAsync(bctx, w.election(w.conn(), "b"))
		w.waitWatched(la.Node())
		kids := w.children()
		pc := w.campaignAsync(w.ctx, w.election(w.conn(), "c"))
		w.waitWatched(dir + "/" + kids[1])
		for range 2 {
			w.Once(func(_ *machine.Machine, _ int64, req proto.Request) (fakezk.Fault, bool) {
				d, ok := req.(proto.Delete)
				return fault, ok && d.Path == dir+"/"+kids[1]
			})
		}
		cancelB()
		if _, err := pb.Wait(t, w.ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("%v: cancelled candidate: %v", fault, err)
		}
		if kids := w.children(); len(kids) != 2 {
			t.Fatalf("%v: cancelled candidate's node survived: %v", fault, kids)
		}
		w.waitWatched(la.Node())
		if pc.Returned() {
			t.Fatalf("%v: c leads while a does", fault)
		}
		// Release also removes the leader's node through connection loss,
		// and hands over to c.
		w.Once(func(_ *machine.Machine, _ int64, req proto.Request) (fakezk.Fault, bool) {
			d, ok := req.(proto.Delete)
			return fault, ok && d.Path == la.Node()
		})
		w.resign(la)
		if _, _, ok := node(w, la.Node()); ok {
			t.Fatalf("%v: resigned leader's node survived", fault)
		}
		w.resign(pc.Receive(t, w.ctx, "Campaign"))
	}
}

// A Campaign with a ctx already done fails and leaves nothing behind.
func TestCampaign_Timeout(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	la := w.campaign(w.election(w.conn(), "a"))
	ctx, cancel := context.WithCancel(w.ctx)
	cancel()
	if _, err := w.election(w.conn(), "b").Campaign(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("campaign with a done ctx: %v", err)
	}
	if kids := w.children(); len(kids) != 1 {
		t.Fatalf("nodes: %v", kids)
	}
	if _, err := w.election(w.conn(), "c").TryCampaign(w.ctx); !errors.Is(err, recipe.ErrWouldBlock) {
		t.Fatalf("TryCampaign behind a leader: %v, want recipe.ErrWouldBlock", err)
	}
	if kids := w.children(); len(kids) != 1 {
		t.Fatalf("nodes after TryCampaign: %v", kids)
	}
	w.resign(la)
}

// A leader whose session the server expires while it is connected is told
// at once: its Wait returns ErrLost, and by the time the next candidate
// leads, with a higher term, the old leader's Check already says ErrLost.
func TestLeadership_ExpiryToldBeforeNewLeader(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	a := w.conn()
	la := w.campaign(w.election(a, "a"))
	waiting := w.waitAsync(la)
	pb := w.campaignAsync(w.ctx, w.election(w.conn(), "b"))
	w.waitWatched(la.Node())
	if err := w.srv.Expire(la.Session()); err != nil {
		t.Fatal(err)
	}
	lb := pb.Receive(t, w.ctx, "Campaign")
	if err := la.Check(); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("old leader's Check once b leads: %v, want ErrLost", err)
	}
	if _, err := waiting.Wait(t, w.ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("old leader's Wait: %v, want ErrLost", err)
	}
	if lb.Term() <= la.Term() {
		t.Fatalf("new term %d not above old %d", lb.Term(), la.Term())
	}
	if err := la.Release(w.ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("old leader's Release: %v, want ErrLost", err)
	}
	w.resign(lb)
}

// A partitioned leader cannot be told before the server moves on: it is
// told when it reconnects, and meanwhile its fenced write is refused while
// the new leader's lands.
func TestLeadership_PartitionedLeaderFenced(t *testing.T) {
	w := newWorld(t, fakezk.Config{TickMillis: 1000})
	a, b := w.conn(), w.conn()
	if _, err := b.Create(w.ctx, "/resource", nil, zkapi.Persistent); err != nil {
		t.Fatal(err)
	}
	la := w.campaign(w.election(a, "a"))
	waiting := w.waitAsync(la)
	pb := w.campaignAsync(w.ctx, w.election(b, "b"))
	w.waitWatched(la.Node())
	w.srv.Disconnect(la.Session())
	w.srv.Tick(4) // past the session timeout
	lb := pb.Receive(t, w.ctx, "Campaign")
	if waiting.Returned() {
		t.Fatal("a partitioned leader heard of its loss before reconnecting")
	}
	w.srv.Reconnect(la.Session())
	if _, err := waiting.Wait(t, w.ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("stale leader's Wait: %v, want ErrLost", err)
	}
	set := zkapi.SetOp{Path: "/resource", Data: []byte("stale"), Version: -1}
	if _, err := la.Fenced(w.ctx, set); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("stale fenced write: %v, want ErrLost", err)
	}
	set.Data = []byte("fresh")
	if _, err := lb.Fenced(w.ctx, set); err != nil {
		t.Fatalf("leader's fenced write: %v", err)
	}
	if data, _, _ := node(w, "/resource"); string(data) != "fresh" {
		t.Fatalf("resource holds %q", data)
	}
	w.resign(lb)
}

// A leader whose node someone else deletes is told by Wait, and its
// fenced writes are refused.
func TestLeadership_NodeDeletedEndsLeadership(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	la := w.campaign(w.election(w.conn(), "a"))
	waiting := w.waitAsync(la)
	w.waitWatched(la.Node())
	if err := w.conn().Delete(w.ctx, la.Node(), -1); err != nil {
		t.Fatal(err)
	}
	if _, err := waiting.Wait(t, w.ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("Wait after the node was deleted: %v, want ErrLost", err)
	}
	if _, err := la.Fenced(w.ctx, zkapi.CreateOp{Path: "/x"}); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("fenced write without the node: %v, want ErrLost", err)
	}
}

// Release from another goroutine ends a Wait with recipe.ErrReleased,
// and a second Release is a no-op.
func TestLeadership_ResignEndsWait(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	la := w.campaign(w.election(w.conn(), "a"))
	waiting := w.waitAsync(la)
	w.waitWatched(la.Node())
	w.resign(la)
	if _, err := waiting.Wait(t, w.ctx); !errors.Is(err, recipe.ErrReleased) {
		t.Fatalf("Wait after Release: %v, want recipe.ErrReleased", err)
	}
	if err := la.Check(); !errors.Is(err, recipe.ErrReleased) {
		t.Fatalf("Check after Release: %v", err)
	}
	w.resign(la)
}

// Two leaders after a reconnect (CURATOR-653/620, CURATOR-498's shape): a
// create's reply is lost and the session expires; a lagging follower
// still lists the old session's node, whose guid matches. The candidate
// must not lead on that node: it leads on a node its new session owns.
func TestCampaign_LostCreateOfDyingSessionNotAdopted(t *testing.T) {
	w := newWorld(t, fakezk.Config{Followers: 1})
	c, err := w.srv.Connect(fakezk.ConnOptions{Replica: 1, SessionTimeoutMs: 4000})
	if err != nil {
		t.Fatal(err)
	}
	e := w.election(c, "a")
	w.resign(w.campaign(e))
	w.srv.Tick(1) // the follower caught up
	old := c.Session().ID
	w.Once(func(m *machine.Machine, sid int64, req proto.Request) (fakezk.Fault, bool) {
		if _, ok := req.(proto.Create); !ok {
			return 0, false
		}
		// Apply the create, then expire the session on the leader; the
		// follower has not caught up with the expiry yet.
		m.Do(sid, req)
		m.Expire(sid)
		return fakezk.LoseRequest, true
	})
	l := w.campaign(e)
	if l.Session() == old {
		t.Fatalf("leads on the expired session %#x", old)
	}
	_, st, ok := node(w, l.Node())
	if !ok || st.EphemeralOwner != c.Session().ID {
		t.Fatalf("leader node %s owner %#x, want current session %#x", l.Node(), st.EphemeralOwner, c.Session().ID)
	}
	w.resign(l)
}

// The election reports the family's errors (package recipe) in its own
// words: errors.Is takes them for recipe's, and the texts say
// "election", so a log reads as the election's.
func TestElection_FamilyErrorsInItsOwnWords(t *testing.T) {
	w := newWorld(t, fakezk.Config{})
	la := w.campaign(w.election(w.conn(), "a"))
	_, err := w.election(w.conn(), "b").TryCampaign(w.ctx)
	w.resign(la)
	for _, tc := range []struct {
		op     string
		err    error
		family error
		words  string
	}{
		{"TryCampaign behind a leader", err, recipe.ErrWouldBlock, "election: another candidate leads"},
		{"Check after Release", la.Check(), recipe.ErrReleased, "election: resigned"},
	} {
		if !errors.Is(tc.err, tc.family) || !strings.Contains(tc.err.Error(), tc.words) || strings.Contains(tc.err.Error(), "lock:") {
			t.Errorf("%s: %v, want %v in the words %q", tc.op, tc.err, tc.family, tc.words)
		}
	}
}
