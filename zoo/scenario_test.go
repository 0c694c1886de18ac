package zoo_test

import (
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/fakehook"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zoo"
)

// scenario is a scripted schedule on the fake server that makes a recipe
// show a violation of one class. run reports whether it broke the recipe,
// and what happened.
type scenario struct {
	name  string
	class check.Class
	run   func(t *testing.T, e *env, r recipe.Lock) (broke bool, detail string)
	// good are the good recipes the scenario must not break, besides
	// zoo.Mutex.
	good []recipe.Lock
}

// scenarios maps each exhibit to the schedules that break it. Each
// exhibit's first scenario shows its Violation; later ones may show a
// class of its Also.
var scenarios = map[string][]scenario{
	zoo.NameDirWatch:   {herdOnRelease("wwww")},
	zoo.NameSingleNode: {herdOnRelease("wwww")},
	zoo.NameHerdShared: {herdOnRelease("wrrw")},
	zoo.NameNoGUIDRetry: {
		orphanBlocks(check.Deadlock, "lost-create-reply", loseCreateReply),
		orphanBlocks(check.Deadlock, "lost-create-reply-and-lookup", loseCreateReply, loseChildren),
	},
	zoo.NameAssumeOnWake:     {gaveUpWhileWatched()},
	zoo.NameExistsAbsence:    {gaveUpBeforeWatch()},
	zoo.NameTimeoutLeak:      {orphanBlocks(check.Deadlock, "waiter-gives-up")},
	zoo.NameDeleteFirstChild: {expiredHolderReleases(), lostDeleteReply()},
	zoo.NameSplitDash:        {newcomerSortsFirst()},
	zoo.NameGoZKLock: {
		orphanBlocks(check.Orphan, "lost-children", loseChildren),
		orphanBlocks(check.Orphan, "lost-create-reply-and-lookup", loseCreateReply, loseChildren),
		orphanBlocks(check.Orphan, "waiter-gives-up"),
		overflowGrantsTwice(),
		abandonedSessionNodeAdopted(),
	},
	zoo.NameAdoptDying: {abandonedSessionNodeAdopted()},
}

// Every exhibit is broken by its scenarios, and the good recipes run the
// same schedules without breaking: the scenarios are valid, and they show
// what the good recipes do differently.
func TestExhibits_ScenariosBreakThem(t *testing.T) {
	for _, ex := range zoo.Locks() {
		scs := append(scenarios[ex.Name], electionScenarios[ex.Name]...)
		if len(scs) == 0 {
			t.Errorf("%s has no scenario", ex.Name)
			continue
		}
		if scs[0].class != ex.Violation {
			t.Errorf("%s: first scenario shows %s, exhibit says %s", ex.Name, scs[0].class, ex.Violation)
		}
		for _, sc := range scs {
			if sc.class != ex.Violation && !slices.Contains(ex.Also, sc.class) {
				t.Errorf("%s: scenario %s shows %s, not listed", ex.Name, sc.name, sc.class)
			}
			short := strings.TrimPrefix(ex.Name, "zoo/")
			t.Run(short+"/"+sc.name, func(t *testing.T) {
				broke, detail := sc.run(t, newEnv(t), ex.Recipe)
				if !broke {
					t.Fatalf("did not break %s: %s", ex.Name, detail)
				}
				t.Log(detail)
			})
			for _, good := range append([]recipe.Lock{goodFor(ex)}, sc.good...) {
				t.Run(short+"/"+sc.name+"/good-"+good.Name, func(t *testing.T) {
					broke, detail := sc.run(t, newEnv(t), good)
					if broke {
						t.Fatalf("broke the good recipe %s: %s", good.Name, detail)
					}
					t.Log(detail)
				})
			}
		}
	}
}

// The exhibits other than goZKLock carry one defect each: the scenarios
// aimed at other exhibits' defects do not break them. Some scenarios
// cannot run against every exhibit: those that need a queue in arrival
// order skip singleNode (no queue) and splitDash (its order is that of
// the ids), and those where a waiter gives up skip the exhibits whose
// defect that is.
func TestExhibits_OtherwiseCorrect(t *testing.T) {
	fifo := []string{zoo.NameSingleNode, zoo.NameSplitDash}
	givingUp := append(fifo, zoo.NameTimeoutLeak, zoo.NameGoZKLock)
	checks := []struct {
		sc   scenario
		skip []string
	}{
		{orphanBlocks(check.Deadlock, "lost-create-reply", loseCreateReply), nil},
		{orphanBlocks(check.Deadlock, "waiter-gives-up"), fifo},
		{orphanBlocks(check.Orphan, "lost-children", loseChildren), nil},
		{orphanBlocks(check.Orphan, "lost-create-reply-and-lookup", loseCreateReply, loseChildren), nil},
		{overflowGrantsTwice(), nil},
		{gaveUpWhileWatched(), givingUp},
		{gaveUpBeforeWatch(), givingUp},
		{expiredHolderReleases(), fifo},
		{lostDeleteReply(), fifo},
		{abandonedSessionNodeAdopted(), fifo},
	}
	for _, ex := range zoo.Locks() {
		if ex.Recipe.Leases > 1 {
			continue // these scenarios hold a lock; semaphores: TestSemaphoreExhibits_OtherwiseCorrect
		}
		for _, c := range checks {
			owns := append(scenarios[ex.Name], electionScenarios[ex.Name]...)
			own := slices.ContainsFunc(owns, func(own scenario) bool { return own.name == c.sc.name })
			if own || slices.Contains(c.skip, ex.Name) {
				continue
			}
			t.Run(strings.TrimPrefix(ex.Name, "zoo/")+"/"+c.sc.name, func(t *testing.T) {
				if broke, detail := c.sc.run(t, newEnv(t), ex.Recipe); broke {
					t.Fatalf("broke %s, whose defect is elsewhere: %s", ex.Name, detail)
				}
			})
		}
	}
}

// acquireFor picks Acquire or, for 'r' and a recipe that has it,
// AcquireRead. A good exclusive lock is a valid, stricter, shared lock.
func acquireFor(r recipe.Lock, kind rune) acquireFunc {
	if kind == 'r' && r.AcquireRead != nil {
		return r.AcquireRead
	}
	return r.Acquire
}

// herdOnRelease (bug scenario 7): a writer holds, waiters queue in the
// order of kinds ('w' writer, 'r' reader; kinds starts with a writer), and
// the holder releases. Only one waiter can proceed. It counts the waiter
// sessions holding a watch the release fires (seen with Machine.Watchers
// just before it) and the waiter sessions that send a request after it
// (woken); a herd is more than one of either.
func herdOnRelease(kinds string) scenario {
	return scenario{name: "herd-on-release-" + kinds, class: check.Herd, good: []recipe.Lock{zoo.RWMutex()},
		run: func(t *testing.T, e *env, r recipe.Lock) (bool, string) {
			holder := e.holder(r.Acquire, "holder")
			ws := make([]*attempt, len(kinds))
			for i, k := range kinds {
				ws[i] = e.waiter(acquireFor(r, k), fmt.Sprintf("%c%d", k, i))
			}
			e.allWaiting(ws)
			watched := e.firedBy(e.nodeOf(holder.sid), ws)

			stop := e.record()
			e.release(holder)
			first := e.firstDone(ws)
			e.mustHold(first)
			rest := slices.DeleteFunc(slices.Clone(ws), func(w *attempt) bool { return w == first })
			e.allWaiting(rest)
			sent := stop()
			woke := 0
			for _, w := range ws {
				if sent[w.sid] {
					woke++
				}
			}
			e.release(first)
			return watched > 1 || woke > 1, fmt.Sprintf(
				"%d of %d waiters held a watch the release fired, %d woke; 1 could proceed", watched, len(ws), woke)
		}}
}

// firedBy counts the waiters whose watches the deletion of p fires: data
// and child watches on p, and child watches on its directory.
func (e *env) firedBy(p string, ws []*attempt) int {
	return inspect(e, func(m *machine.Machine) int {
		data, child := m.Watchers(0, p)
		_, dirChild := m.Watchers(0, path.Dir(p)) // the parent's child watch fires too
		n := 0
		for _, w := range ws {
			if slices.Contains(data, w.sid) || slices.Contains(child, w.sid) || slices.Contains(dirChild, w.sid) {
				n++
			}
		}
		return n
	})
}

// faultFor makes a one-shot fault rule aimed at one attempt's session.
type faultFor func(e *env, a *attempt) rule

// loseCreateReply: the attempt's first create in the lock directory is
// applied and its reply lost (bug scenario 1).
func loseCreateReply(e *env, a *attempt) rule {
	return func(_ *machine.Machine, sid int64, req proto.Request) (fakezk.Fault, bool) {
		c, ok := req.(proto.Create)
		return fakezk.LoseReply, ok && sid == a.sid && strings.HasPrefix(c.Path, e.dir+"/")
	}
}

// loseChildren: the attempt's first getChildren is lost before it reaches
// the server.
func loseChildren(_ *env, a *attempt) rule {
	return func(_ *machine.Machine, sid int64, req proto.Request) (fakezk.Fault, bool) {
		_, ok := req.(proto.GetChildren)
		return fakezk.LoseRequest, ok && sid == a.sid
	}
}

// orphanBlocks (bug scenarios 1 and 6): a holder holds; a second attempt,
// b, meets the faults (or, given none, gives up once it waits); the holder
// releases, b is released if it got the lock; then a last attempt comes.
// Nothing else happens on the server from then on, so an attempt that
// still waits waits forever: the recipe is broken if b or the last one is
// left waiting, on a node no running attempt owns (an orphan, whose live
// session keeps it: a deadlock).
func orphanBlocks(class check.Class, name string, faults ...faultFor) scenario {
	return scenario{name: name, class: class, run: func(t *testing.T, e *env, r recipe.Lock) (bool, string) {
		holder := e.holder(r.Acquire, "holder")
		b := e.prepare("b")
		for _, f := range faults {
			e.once(f(e, b))
		}
		e.run(b, r.Acquire)
		if len(faults) == 0 {
			e.mustWait(b)
			b.cancel()
			e.join(b)
		} else {
			e.untilWaiting(b)
		}
		e.release(holder)
		var stuck []string
		if !b.finished() && e.untilWaiting(b) {
			stuck = append(stuck, e.describe(b))
			b.cancel()
		}
		if _, err := e.join(b); err == nil {
			e.release(b)
		}
		last := e.start(r.Acquire, "last")
		if e.untilWaiting(last) {
			stuck = append(stuck, e.describe(last))
			last.cancel()
		} else {
			e.release(last)
		}
		if len(stuck) == 0 {
			return false, "every attempt got the lock or returned"
		}
		return true, strings.Join(stuck, "; ") + " while no attempt holds: deadlock"
	}}
}

// gaveUpWhileWatched (bug scenario 5): a holder holds, b waits on it, c
// waits on b; b gives up. c must wait on, not hold alongside, the holder.
func gaveUpWhileWatched() scenario {
	return scenario{name: "predecessor-gives-up", class: check.MutualExclusion,
		run: func(t *testing.T, e *env, r recipe.Lock) (bool, string) {
			holder, b, c := e.queueOfThree(r)
			b.cancel()
			if _, err := e.join(b); err == nil {
				t.Fatal("b acquired after giving up")
			}
			return e.holdsBoth(holder, c)
		}}
}

// gaveUpBeforeWatch (bug scenarios 4 and 5): a holder holds and b waits
// on it; c lists the directory, and just before c's request to watch b's
// node reaches the server, b gives up: its node is deleted as b's own
// request, and b, cancelled, returns before anything else happens. c must
// list again and wait on the holder.
func gaveUpBeforeWatch() scenario {
	return scenario{name: "predecessor-gives-up-before-watch", class: check.MutualExclusion,
		run: func(t *testing.T, e *env, r recipe.Lock) (bool, string) {
			holder := e.holder(r.Acquire, "holder")
			b := e.waiter(r.Acquire, "b")
			bNode := e.nodeOf(b.sid)
			if bNode == "" {
				t.Fatal("b waits without a node of its own")
			}
			c := e.prepare("c")
			e.once(func(m *machine.Machine, sid int64, req proto.Request) (fakezk.Fault, bool) {
				if sid != c.sid || readPath(req) != bNode {
					return fakezk.Deliver, false
				}
				m.Do(b.sid, proto.Delete{Path: bNode, Version: -1})
				return fakezk.Deliver, true
			})
			e.run(c, r.Acquire)
			cWaits := e.untilWaiting(c)
			b.cancel()
			if _, err := e.join(b); err == nil {
				t.Fatal("b acquired after giving up")
			}
			return e.settle(holder, c, cWaits)
		}}
}

// readPath is the path of an exists or getData request.
func readPath(req proto.Request) string {
	switch r := req.(type) {
	case proto.Exists:
		return r.Path
	case proto.GetData:
		return r.Path
	}
	return ""
}

// holdsBoth checks whether c got the lock while holder still holds it;
// if c waits instead, the holder releases and c must get it.
func (e *env) holdsBoth(holder, c *attempt) (bool, string) {
	e.t.Helper()
	return e.settle(holder, c, e.untilWaiting(c))
}

// settle is holdsBoth once it is known whether c waits.
func (e *env) settle(holder, c *attempt, cWaits bool) (bool, string) {
	e.t.Helper()
	if cWaits {
		detail := e.describe(c)
		e.release(holder)
		e.mustHold(c)
		e.release(c)
		return false, detail
	}
	if _, err := e.join(c); err != nil {
		e.t.Fatalf("c: %v", err)
	}
	return true, fmt.Sprintf("%s and %s hold the lock at once", holder.id, c.id)
}

// expiredHolderReleases (bug scenario 3): b and c queue behind a holder
// whose session expires (a pause longer than the timeout); b gets the
// lock; then the old holder, which was not told, releases. c must go on
// waiting for b.
func expiredHolderReleases() scenario {
	return scenario{name: "expired-holder-releases", class: check.MutualExclusion,
		run: func(t *testing.T, e *env, r recipe.Lock) (bool, string) {
			holder, b, c := e.queueOfThree(r)
			if err := e.srv.Expire(holder.sid); err != nil {
				t.Fatal(err)
			}
			e.mustHold(b)
			relErr := holder.held.Release(e.ctx)
			broke, detail := e.holdsBoth(b, c)
			return broke, fmt.Sprintf("%s (the old holder's Release said %v)", detail, relErr)
		}}
}

// lostDeleteReply (bug scenario 6): b and c queue behind a holder whose
// release deletes its node, but the reply is lost; the holder's link stays
// down (its requests are lost) until b has the lock, and then its release
// goes on. c must go on waiting for b.
func lostDeleteReply() scenario {
	return scenario{name: "lost-delete-reply", class: check.MutualExclusion,
		run: func(t *testing.T, e *env, r recipe.Lock) (bool, string) {
			holder, b, c := e.queueOfThree(r)
			holderNode := e.nodeOf(holder.sid)
			e.once(func(_ *machine.Machine, sid int64, req proto.Request) (fakezk.Fault, bool) {
				d, ok := req.(proto.Delete)
				return fakezk.LoseReply, ok && sid == holder.sid && d.Path == holderNode
			})
			e.always(func(m *machine.Machine, sid int64, _ proto.Request) (fakezk.Fault, bool) {
				_, _, exists := m.Node(holderNode)
				return fakezk.LoseRequest, sid == holder.sid && !exists && !b.finished()
			})
			relErr := holder.held.Release(e.ctx)
			e.mustHold(b)
			broke, detail := e.holdsBoth(b, c)
			return broke, fmt.Sprintf("%s (the holder's Release said %v)", detail, relErr)
		}}
}

// newcomerSortsFirst (bug scenario 10): one holder holds, a second
// contender comes; in each of the two orders of two ids. The second must
// wait both times.
func newcomerSortsFirst() scenario {
	return scenario{name: "newcomer-sorts-first", class: check.MutualExclusion,
		run: func(t *testing.T, e *env, r recipe.Lock) (bool, string) {
			var both []string
			for i, ids := range [][2]string{{"h0", "h1"}, {"h1", "h0"}} {
				e.dir = fmt.Sprintf("/zoo/order-%d", i)
				first := e.holder(r.Acquire, ids[0])
				if broke, detail := e.holdsBoth(first, e.start(r.Acquire, ids[1])); broke {
					both = append(both, detail)
				}
			}
			if len(both) == 0 {
				return false, "the newcomer waited in both orders"
			}
			return true, strings.Join(both, "; ")
		}}
}

// overflowGrantsTwice (bug scenario 8): the directory's sequence counter
// is at 2^31-1 and the server pins it there (3.6+), so two contenders get
// the same number.
func overflowGrantsTwice() scenario {
	return scenario{name: "sequence-overflow", class: check.MutualExclusion,
		run: func(t *testing.T, e *env, r recipe.Lock) (bool, string) {
			fakehook.Inspect(e.srv, func(m *machine.Machine) {
				if err := m.SetSequence(e.dir, math.MaxInt32); err != nil {
					t.Error(err)
				}
			})
			a := e.start(r.Acquire, "a")
			if _, err := e.join(a); err != nil {
				return false, fmt.Sprintf("a refused: %v", err)
			}
			b := e.start(r.Acquire, "b")
			if e.untilWaiting(b) {
				return false, e.describe(b)
			}
			if _, err := e.join(b); err != nil {
				return false, fmt.Sprintf("b refused: %v", err)
			}
			return true, "a and b hold the lock at once"
		}}
}
