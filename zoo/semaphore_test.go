package zoo_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zoo"
)

func init() {
	scenarios[zoo.NameSemMixedMax] = []scenario{mixedMaxOverGrants()}
	scenarios[zoo.NameSemDirWatch] = []scenario{semHerdOnRelease()}
	scenarios[zoo.NameSemTimeoutLeak] = []scenario{
		givenUpLeaseLeft(check.Orphan, 1), givenUpLeaseLeft(check.Deadlock, 2),
	}
}

// goodFor is the good recipe an exhibit's scenarios must not break: the
// lock, or for a semaphore exhibit the semaphore of as many leases.
func goodFor(ex zoo.Exhibit) recipe.Lock {
	if ex.Recipe.Leases > 1 {
		return zoo.Semaphore(ex.Recipe.Leases)
	}
	return zoo.Mutex()
}

// holders starts n attempts that must each get a lease.
func (e *env) holders(r recipe.Lock, n int) []*attempt {
	e.t.Helper()
	var hs []*attempt
	for i := range n {
		hs = append(hs, e.holder(r.Acquire, fmt.Sprintf("h%d", i)))
	}
	return hs
}

// semHerdOnRelease (bug scenario 7, with N leases): N hold, two wait, and
// the last holder releases. One waiter can take the freed lease; a herd is more
// than one waiter holding a watch the release fires.
func semHerdOnRelease() scenario {
	return scenario{name: "herd-on-release", class: check.Herd,
		run: func(t *testing.T, e *env, r recipe.Lock) (bool, string) {
			hs := e.holders(r, r.MaxHolders())
			ws := []*attempt{e.waiter(r.Acquire, "w0"), e.waiter(r.Acquire, "w1")}
			e.allWaiting(ws)
			last := hs[len(hs)-1] // the first waiter's predecessor, for the queue semaphores
			watched := e.firedBy(e.nodeOf(last.sid), ws)
			e.release(last)
			e.release(e.firstDone(ws))
			return watched > 1, fmt.Sprintf("%d of %d waiters held a watch the release fired; 1 could proceed", watched, len(ws))
		}}
}

// mixedMaxOverGrants (bug scenario 11): clients 1 and 3 hold the N
// leases; client 2 comes (the harness's holder ids, which semMixedMax
// gives N+1). It must wait.
func mixedMaxOverGrants() scenario {
	return scenario{name: "client-of-larger-n", class: check.MaxLeases,
		run: func(t *testing.T, e *env, r recipe.Lock) (bool, string) {
			e.holder(r.Acquire, "c1_0")
			e.holder(r.Acquire, "c3_0")
			c := e.start(r.Acquire, "c2_0")
			if e.untilWaiting(c) {
				c.cancel()
				e.join(c)
				return false, "c2 waits while c1 and c3 hold"
			}
			if _, err := e.join(c); err != nil {
				return false, fmt.Sprintf("c2 refused: %v", err)
			}
			return true, fmt.Sprintf("c2 holds beside c1 and c3: 3 holders of %d leases", r.MaxHolders())
		}}
}

// givenUpLeaseLeft (bug scenario 6, with N leases): N hold, gaveUp
// waiters wait and give up, the holders release, and a last attempt
// comes. Nothing else happens on the server. Broken if the nodes of those
// who gave up stay (orphans, each taking a lease) and, with N of them,
// the last attempt waits forever (deadlock).
func givenUpLeaseLeft(class check.Class, gaveUp int) scenario {
	name := fmt.Sprintf("%d-waiters-give-up", gaveUp)
	return scenario{name: name, class: class, run: func(t *testing.T, e *env, r recipe.Lock) (bool, string) {
		hs := e.holders(r, r.MaxHolders())
		for i := range gaveUp {
			b := e.waiter(r.Acquire, fmt.Sprintf("b%d", i))
			b.cancel()
			if _, err := e.join(b); err == nil {
				t.Fatalf("%s acquired after giving up", b.id)
			}
		}
		for _, h := range hs {
			e.release(h)
		}
		last := e.start(r.Acquire, "last")
		if e.untilWaiting(last) {
			detail := e.describe(last) + " while no attempt holds: deadlock"
			last.cancel()
			e.join(last)
			return class == check.Deadlock, detail
		}
		e.release(last)
		left := inspect(e, func(m *machine.Machine) []string { return ephemeralsBelow(m, e.dir) })
		if len(left) > 0 {
			return class == check.Orphan, fmt.Sprintf("%v left behind by attempts that returned", left)
		}
		return false, "every attempt got a lease or returned, nothing left behind"
	}}
}

// The semaphore exhibits carry one defect each: the scenarios aimed at
// the other semaphore exhibits' defects do not break them.
func TestSemaphoreExhibits_OtherwiseCorrect(t *testing.T) {
	for _, ex := range zoo.Locks() {
		if ex.Recipe.Leases <= 1 || ex.Name == zoo.NameSemBusyCount {
			continue // semBusyCount never waits: the others' scenarios need waiters that do
		}
		for _, other := range zoo.Locks() {
			if other.Name == ex.Name || other.Recipe.Leases <= 1 {
				continue
			}
			for _, sc := range scenarios[other.Name] {
				t.Run(strings.TrimPrefix(ex.Name, "zoo/")+"/"+sc.name, func(t *testing.T) {
					if broke, detail := sc.run(t, newEnv(t), ex.Recipe); broke {
						t.Fatalf("broke %s, whose defect is elsewhere: %s", ex.Name, detail)
					}
				})
			}
		}
	}
}
