package zoo

import (
	"context"
	"errors"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// Timer exhibits: broken recipes whose bug needs a timer (an acquire
// deadline, a session expiry) to fire while another client is between
// two of its requests, or a client that retries without ever waiting.
// A systematic search that lets time pass only when nothing else can
// happen never sees the first two; one that keeps time frozen while a
// client spins reports the third as no-progress, hiding its real bug.

// Names of the timer exhibits.
const (
	NameElectAbsence = "zoo/electabsence"
	NameSemBusyCount = "zoo/sembusycount"
	NameLiveAbsence  = "zoo/liveabsence"
)

// timerExhibits are the timer exhibits, in their order at the end of
// Exhibits.
func timerExhibits() []Exhibit {
	return []Exhibit{
		{
			Name: NameElectAbsence, Recipe: electAbsence(),
			Origin: "the election of the ZooKeeper recipes page with its step " +
				`"if exists() returns null, go to step 2" read as "... I lead"`,
			Bug: "a follower whose predecessor vanished between getChildren and exists " +
				"(its session expired, or it gave up at its deadline) leads while the " +
				"leader before it still leads",
			Scenarios: []int{4, 5}, Violation: check.MutualExclusion,
		},
		{
			Name: NameLiveAbsence, Recipe: liveAbsence(),
			Origin: "zoo/existsabsence's shortcut with the session check the recipes page " +
				"asks for after every step: exists(predecessor) null taken as the lock " +
				"once the session is seen alive",
			Bug: "a predecessor that gave up at its deadline, or whose session " +
				"expired, between getChildren and exists makes it hold beside the holder " +
				"before it; only a timer firing inside that window removes the predecessor",
			Scenarios: []int{4, 5}, Violation: check.MutualExclusion,
		},
		{
			Name: NameSemBusyCount, Recipe: semBusyCount(),
			Origin: `the counting semaphore of blog posts: "getChildren; if fewer than ` +
				`N, create; else retry", the retry without a wait`,
			Bug: "two contenders that count while one lease is free both create and " +
				"both hold; the busy retry keeps a search with frozen time from ever " +
				"seeing it",
			Scenarios: []int{11}, Violation: check.MaxLeases,
		},
	}
}

// electAbsence is the election that takes its predecessor's absence for
// leadership: a candidate lists the directory and, if it is not first,
// calls exists(predecessor, watch); if exists says the predecessor is gone
// it leads without listing again. Everything else is the good election:
// its Watch step is swapped (existsAbsence's, on the election's queue).
//
// Origin: the "Leader Election" section of the ZooKeeper recipes page
// ("if exists() returns null ... go to step 2", after a getChildren)
// shortened to "the node before mine is gone, so I lead", as in
// hand-written elections over kazoo and go-zookeeper.
//
// Bug (docs/zk-semantics.md bug scenarios 4 and 5): a follower's
// predecessor is another follower, which can vanish without the leader
// going: its session expires (it crashed, paused or was abandoned) or it
// gives up its candidacy at its deadline. When that happens between this
// follower's getChildren and its exists, the follower leads beside the
// leader. The window is one request wide, so the timer has to fire while
// the follower is between two requests. Violation: mutual-exclusion (two
// leaders at once).
func electAbsence() recipe.Lock { return electRecipe(NameElectAbsence) }

// semBusyCount is the counting semaphore of 2 leases that counts before
// it creates, and retries without waiting: a contender lists the
// directory's "lease-" nodes; if fewer than 2 are there it creates its
// own "lease-<id>-<seq>" (with the queue's lost-create lookup) and holds
// at once; if 2 are there it lists again at once, without a watch and
// without waiting. The sound busy semaphore creates first and then
// counts the nodes before its own, deleting and retrying when 2 are:
// this is that recipe with the count moved before the create. Release
// deletes its node through connection loss.
//
// Origin: the counting semaphore of blog posts and answers ("getChildren;
// if size < max, create an ephemeral node; else sleep and retry"), with
// the sleep dropped; the race of Curator's InterProcessSemaphore (v1)
// lease count that InterProcessSemaphoreV2's internal lock closed.
//
// Bug (docs/zk-semantics.md bug scenario 11): two contenders that list
// while one lease is free both create and both hold, beside the holder:
// three leases of two. The busy retry hides it from a search that keeps
// time frozen while a contender spins: the holders sleep in virtual time,
// so a full semaphore spins forever and the run is judged no-progress
// first. Violation: max-leases.
func semBusyCount() recipe.Lock {
	return recipe.Lock{Name: NameSemBusyCount, Acquire: busyCount, Leases: semLeases}
}

// busyCount is semBusyCount's Acquire.
func busyCount(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error) {
	if err := checkArgs(dir, id); err != nil {
		return nil, err
	}
	q := queue.Queue{Conn: conn, Dir: dir}
	for {
		if err := ctx.Err(); err != nil {
			return nil, wrap(NameSemBusyCount, dir, err)
		}
		ms, err := q.List(ctx, leaseKind)
		switch {
		case errors.Is(err, zkapi.ErrNoNode):
			ms = nil // no directory yet: Join makes it
		case errors.Is(err, zkapi.ErrConnectionLoss):
			if err := queue.AwaitLink(ctx, conn); err != nil {
				return nil, wrap(NameSemBusyCount, dir, err)
			}
			continue
		case err != nil:
			return nil, wrap(NameSemBusyCount, dir, err)
		}
		if len(ms) >= semLeases {
			continue // full: list again at once
		}
		// The defect: the count is not taken again after the create.
		p, sid, err := q.Join(ctx, queue.Request{Kind: leaseKind, GUID: id, Data: []byte(id), Kinds: []string{leaseKind}})
		if err != nil {
			return nil, wrap(NameSemBusyCount, dir, err)
		}
		return held{&queue.Hold{Q: q, Path: p, SID: sid}}, nil
	}
}

// liveAbsence is the queue lock that takes a missing predecessor as the
// grant, as existsAbsence does, but only while its own session is alive:
// after getChildren it calls exists(predecessor, watch), and if the
// predecessor is gone and its session is still the one that owns its
// node, it holds without listing again. Everything else is the good lock:
// the queue with its Watch step swapped.
//
// Origin: existsAbsence's shortcut (step 5 of the recipes page's lock
// read as "exists() null: the lock is mine") in code that also follows
// the page's advice to check the session after every step, so that a
// client that lost its session while it was away never holds.
//
// Bug (docs/zk-semantics.md bug scenarios 4 and 5): the session check
// closes the window that a paused client's replaced session opens, but
// not the one a timer opens: a predecessor that gives up at its acquire
// deadline, or whose session expires, between this waiter's getChildren
// and its exists, makes it hold beside the holder before the predecessor.
// Its own session stays, so only a timer firing while the waiter is
// between those two requests shows the bug: a search that lets time pass
// only when every client waits never does. Violation: mutual-exclusion.
func liveAbsence() recipe.Lock { return queued(NameLiveAbsence) }

// absenceWhileAlive is liveAbsence's Watch step.
func absenceWhileAlive(ctx context.Context, h *queue.Hold, p string, _ bool) (queue.Wake, error) {
	// A sync first, so that exists reads the leader's latest (a follower
	// may lag): correct, and it widens the window the defect needs.
	if err := h.Q.Conn.Sync(ctx, h.Q.Dir); err != nil {
		return queue.Changed, nil // list again
	}
	_, ok, w, err := h.Q.Conn.ExistsW(ctx, p)
	switch {
	case errors.Is(err, zkapi.ErrConnectionLoss):
		return queue.Changed, nil
	case err != nil:
		return queue.Changed, err
	case !ok && h.Check() == nil:
		return queue.Granted, nil // the defect: absent is taken as released by a holder
	case !ok:
		return queue.Changed, nil // the session is gone: the listing says so
	}
	_, err = h.WaitWatch(ctx, w)
	return queue.Changed, err
}
