package barrier_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/recipe"

	"github.com/zksim/zksim/barrier"
	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/zkapi"
)

// enterAll has n members enter a barrier of size n and returns them once
// all have passed, checking that none passed before the last arrived.
func enterAll(t *testing.T, w *world, n int) []*barrier.Member {
	t.Helper()
	calls := make([]*zktest.Async[*barrier.Member], n)
	for i := range n {
		d, _ := w.double(n, "m"+string(rune('a'+i)))
		calls[i] = w.enter(d)
		if i < n-1 {
			w.waitDataWatches(i + 1)
			for j := range i + 1 {
				calls[j].Pending(t, "Enter before all arrived")
			}
		}
	}
	ms := make([]*barrier.Member, n)
	for i, c := range calls {
		ms[i] = c.Receive(t, w.ctx, "Enter")
	}
	return ms
}

// leaveAll has every member leave, all but the last in the background.
func leaveAll(t *testing.T, w *world, ms ...*barrier.Member) {
	t.Helper()
	var calls []*zktest.Async[struct{}]
	for _, m := range ms[:len(ms)-1] {
		calls = append(calls, w.leave(m))
	}
	if err := ms[len(ms)-1].Leave(w.ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		c.Receive(t, w.ctx, "Leave")
	}
}

// Nobody passes Enter before n members arrived; the arrival that
// completes the round wakes each other member once, and nobody watches
// the directory.
func TestDouble_EnterWaitsForN(t *testing.T) {
	w := newWorld(t)
	const n = 4
	enterAll(t, w, n)
	w.noDirWatch()
	if got := w.wakes.Load(); got != n-1 {
		t.Errorf("forming the round woke %d times, want %d", got, n-1)
	}
}

// Nobody passes Leave before every member left; a round costs at most
// 3(n-1) wake-ups; nothing is left behind.
func TestDouble_LeaveWaitsForAll(t *testing.T) {
	w := newWorld(t)
	const n = 4
	ms := enterAll(t, w, n)
	w.wakes.Store(0)
	var calls []*zktest.Async[struct{}]
	for _, m := range ms[:n-1] {
		calls = append(calls, w.leave(m))
	}
	w.waitDataWatches(n - 1) // the lowest on the highest, the others on the lowest
	for _, c := range calls {
		c.Pending(t, "Leave before all left")
	}
	w.noDirWatch()
	if err := ms[n-1].Leave(w.ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		c.Receive(t, w.ctx, "Leave")
	}
	t.Logf("leaving woke %d times (n=%d)", w.wakes.Load(), n)
	if got := w.wakes.Load(); got > 3*(n-1) {
		t.Errorf("leaving woke %d times, want at most %d", got, 3*(n-1))
	}
	if err := ms[0].Leave(w.ctx); !errors.Is(err, recipe.ErrReleased) {
		t.Errorf("second Leave: %v, want recipe.ErrReleased (member already left)", err)
	}
	w.reapedEmpty()
}

// A member whose session expires inside counts as left: the others'
// Leave returns, and its own Leave reports ErrLost. Both the lowest
// member (whom the others watch) and the highest (whom the lowest
// watches) are tried.
func TestDouble_ExpiryInsideDoesNotHang(t *testing.T) {
	for _, victim := range []int{0, 2} {
		t.Run(string(rune('a'+victim)), func(t *testing.T) {
			w := newWorld(t)
			ms := enterAll(t, w, 3)
			var calls []*zktest.Async[struct{}]
			for i, m := range ms {
				if i != victim {
					calls = append(calls, w.leave(m))
				}
			}
			w.waitDataWatches(2)
			if err := w.srv.Expire(ms[victim].Session()); err != nil {
				t.Fatal(err)
			}
			for _, c := range calls {
				c.Receive(t, w.ctx, "Leave of a survivor")
			}
			if err := ms[victim].Check(); !errors.Is(err, recipe.ErrLost) {
				t.Errorf("expired member's Check: %v, want ErrLost", err)
			}
			if err := ms[victim].Leave(w.ctx); !errors.Is(err, recipe.ErrLost) {
				t.Errorf("expired member's Leave: %v, want ErrLost", err)
			}
			w.reapedEmpty()
		})
	}
}

// A member whose session expires before its round formed is not counted:
// its Enter reports ErrLost, and the others wait for another live member.
func TestDouble_ExpiryBeforeRoundNotCounted(t *testing.T) {
	w := newWorld(t)
	da, sa := w.double(2, "a")
	a := w.enter(da)
	w.waitDataWatches(1)
	if err := w.srv.Expire(sa); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Wait(t, w.ctx); !errors.Is(err, recipe.ErrLost) {
		t.Fatalf("expired member's Enter: %v, want ErrLost", err)
	}
	db, _ := w.double(2, "b")
	b := w.enter(db)
	w.waitDataWatches(1)
	b.Pending(t, "Enter with a dead member counted")
	dc, _ := w.double(2, "c")
	mc := w.enter(dc).Receive(t, w.ctx, "Enter")
	mb := b.Receive(t, w.ctx, "Enter")
	leaveAll(t, w, mb, mc)
	w.reapedEmpty()
}

// Members arriving while a round is inside form the next round: they do
// not pass with the old members, and the old members' Leave does not wait
// for them.
func TestDouble_NextRoundDoesNotMix(t *testing.T) {
	w := newWorld(t)
	old := enterAll(t, w, 2)
	dc, _ := w.double(2, "c")
	c := w.enter(dc)
	w.waitDataWatches(1)
	c.Pending(t, "Enter counted with the previous round")
	l0 := w.leave(old[0])
	if err := old[1].Leave(w.ctx); err != nil {
		t.Fatal(err)
	}
	l0.Receive(t, w.ctx, "Leave of the old round")
	c.Pending(t, "Enter after the previous round left")
	dd, _ := w.double(2, "d")
	md := w.enter(dd).Receive(t, w.ctx, "Enter")
	mc := c.Receive(t, w.ctx, "Enter")
	if f1, l1 := mc.Round(); f1 == 0 || l1 == 0 {
		t.Errorf("round %d-%d", f1, l1)
	}
	leaveAll(t, w, mc, md)
	w.reapedEmpty()
}

// ZOOKEEPER-1262: the member's create is applied but its reply lost; the
// guid lookup finds the node, so there is one node per member and no
// orphan.
func TestDouble_LostCreateOnEnter(t *testing.T) {
	w := newWorld(t)
	w.once(func(req proto.Request) (fakezk.Fault, bool) {
		cr, ok := req.(proto.Create)
		return fakezk.LoseReply, ok && strings.HasPrefix(cr.Path, dir+"/member-")
	})
	ms := enterAll(t, w, 2)
	if kids := w.children(dir); len(kids) != 2 {
		t.Fatalf("after a lost create reply: children %v, want 2", kids)
	}
	for _, m := range ms {
		if !w.exists(m.Node()) {
			t.Errorf("member node %s missing", m.Node())
		}
	}
	leaveAll(t, w, ms...)
	w.reapedEmpty()
}

// CURATOR-80: an Enter that gives up removes its node, so later arrivals
// do not count it.
func TestDouble_CancelledEnterRemovesNode(t *testing.T) {
	w := newWorld(t)
	da, _ := w.double(2, "a")
	ctx, cancel := context.WithCancel(w.ctx)
	a := zktest.Go(t, ctx, da.Enter)
	w.waitDataWatches(1)
	cancel()
	if _, err := a.Wait(t, w.ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Enter: %v", err)
	}
	if kids := w.children(dir); len(kids) != 0 {
		t.Fatalf("node left after a cancelled Enter: %v", kids)
	}
	w.reapedEmpty()
}

func TestNewDouble_Config(t *testing.T) {
	w := newWorld(t)
	c, _ := w.conn()
	for _, bad := range []struct {
		dir string
		n   int
		id  string
	}{{"b", 2, ""}, {"/", 2, ""}, {"/b/", 2, ""}, {"/b", 0, ""}, {"/b", 2, "a-b"}} {
		if _, err := barrier.NewDouble(c, bad.dir, bad.n, barrier.Options{ID: bad.id}); !errors.Is(err, recipe.ErrConfig) {
			t.Errorf("NewDouble(%q, %d, %q): %v, want ErrConfig", bad.dir, bad.n, bad.id, err)
		}
	}
}

// The mark's reply is lost (connection loss after the multi applied):
// the marker lists again, finds itself marked, and every member enters.
func TestDouble_LostMarkReply(t *testing.T) {
	w := newWorld(t)
	w.once(func(req proto.Request) (fakezk.Fault, bool) {
		_, ok := req.(proto.Multi)
		return fakezk.LoseReply, ok
	})
	ms := enterAll(t, w, 3)
	leaveAll(t, w, ms...)
	w.reapedEmpty()
}

// Bug scenario 2 (CURATOR-498): the create is applied, then the session
// expires before the reply; a lagging follower still lists the old
// session's node with the member's guid. Enter must not adopt it (wrong
// ephemeralOwner): it creates a node of its own under the new session.
func TestDouble_LostCreateOfDyingSessionNotAdopted(t *testing.T) {
	w := newWorld(t, fakezk.Config{Followers: 1})
	c, err := w.srv.Connect(fakezk.ConnOptions{Replica: 1, SessionTimeoutMs: 4000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(w.ctx, "/barriers", nil, zkapi.Persistent); err != nil {
		t.Fatal(err)
	}
	w.srv.Tick(1) // follower caught up
	old := c.Session().ID
	w.Once(func(m *machine.Machine, sid int64, req proto.Request) (fakezk.Fault, bool) {
		cr, ok := req.(proto.Create)
		if !ok || sid != old || !strings.HasPrefix(cr.Path, dir+"/member-a") {
			return 0, false
		}
		m.Do(sid, req)
		m.Expire(sid)
		return fakezk.LoseRequest, true
	})
	da, err := barrier.NewDouble(c, dir, 2, barrier.Options{ID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	a := w.enter(da)
	db, _ := w.double(2, "b")
	mb := w.enter(db).Receive(t, w.ctx, "Enter")
	w.srv.Tick(1) // the follower a reads from applies the mark
	ma := a.Receive(t, w.ctx, "Enter")
	if ma.Session() == old {
		t.Fatalf("member belongs to the expired session %#x", old)
	}
	if kids := w.children(dir); len(kids) != 2 {
		t.Fatalf("children %v, want a's and b's nodes only", kids)
	}
	// The fake's follower applies the leader's changes only at a tick
	// or a sync, so a Leave read from it would wait for the next tick:
	// closing a's session removes its member instead.
	c.Close()
	if kids := w.children(dir); len(kids) != 1 {
		t.Fatalf("after a's session closed: children %v, want b's node", kids)
	}
	if err := mb.Leave(w.ctx); err != nil {
		t.Fatal(err)
	}
	w.reapedEmpty()
}

// CURATOR-202's lesson for barriers: an Enter cancelled while the link is
// down removes its node once the link is back, instead of leaving it to
// be counted as a member.
func TestDouble_CancelledEnterCleansUpThroughConnectionLoss(t *testing.T) {
	w := newWorld(t)
	da, sa := w.double(2, "a")
	ctx, cancel := context.WithCancel(w.ctx)
	a := zktest.Go(t, ctx, da.Enter)
	w.waitDataWatches(1)
	if err := w.srv.Disconnect(sa); err != nil {
		t.Fatal(err)
	}
	cancel()
	if kids := w.children(dir); len(kids) != 1 {
		t.Fatalf("children while cut off: %v", kids)
	}
	if err := w.srv.Reconnect(sa); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Wait(t, w.ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Enter: %v", err)
	}
	if kids := w.children(dir); len(kids) != 0 {
		t.Fatalf("node left after a cancelled Enter: %v", kids)
	}
	db, _ := w.double(2, "b")
	b := w.enter(db)
	w.waitDataWatches(1)
	b.Pending(t, "Enter counting a member that gave up")
}

// The barrier reports the family's errors (package recipe) in its own
// words: errors.Is takes them for recipe's, and the texts say "barrier".
func TestDouble_FamilyErrorsInItsOwnWords(t *testing.T) {
	w := newWorld(t)
	c, _ := w.conn()
	_, cfgErr := barrier.NewDouble(c, "/b", 0, barrier.Options{})
	d, err := barrier.NewDouble(c, "/b", 1, barrier.Options{ID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := d.Enter(w.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Leave(w.ctx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		op     string
		err    error
		family error
		words  string
	}{
		{"NewDouble of size 0", cfgErr, recipe.ErrConfig, "barrier: invalid configuration"},
		{"second Leave", m.Leave(w.ctx), recipe.ErrReleased, "barrier: member already left"},
		{"Check after Leave", m.Check(), recipe.ErrReleased, "barrier: member already left"},
	} {
		if !errors.Is(tc.err, tc.family) || !strings.Contains(tc.err.Error(), tc.words) || strings.Contains(tc.err.Error(), "lock:") {
			t.Errorf("%s: %v, want %v in the words %q", tc.op, tc.err, tc.family, tc.words)
		}
	}
}
