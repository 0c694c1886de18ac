package zoo

import (
	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/recipe"
)

// Lock-family recipe names, the Name of each lock exhibit's recipe.Lock.
const (
	NameDirWatch         = "zoo/dirwatch"
	NameSingleNode       = "zoo/singlenode"
	NameHerdShared       = "zoo/herdshared"
	NameNoGUIDRetry      = "zoo/noguidretry"
	NameAssumeOnWake     = "zoo/assumeonwake"
	NameExistsAbsence    = "zoo/existsabsence"
	NameTimeoutLeak      = "zoo/timeoutleak"
	NameDeleteFirstChild = "zoo/deletefirstchild"
	NameSplitDash        = "zoo/splitdash"
	NameGoZKLock         = "zoo/gozk"
	NameAdoptDying       = "zoo/adoptdying"
	NameElectHerd        = "zoo/electherd"
	NameElectCached      = "zoo/electcached"
	NameElectUnfenced    = "zoo/electunfenced"
)

// Exhibit is one broken recipe with what a harness should find in it:
// a lock-family recipe (Recipe) or a barrier (Barrier), the other left
// zero.
type Exhibit struct {
	// Name is Recipe.Name or Barrier.Name.
	Name    string
	Recipe  recipe.Lock
	Barrier recipe.Barrier
	// Origin is where the design comes from.
	Origin string
	// Bug is the defect, in one paragraph; the exhibit's constructor (in
	// the source) says exactly when it bites.
	Bug string
	// Scenarios are the numbers of the bug scenarios (docs/zk-semantics.md,
	// "Bug scenarios") that a lock exhibit's defect maps to.
	Scenarios []int
	// Violation is the class a harness run must report.
	Violation check.Class
	// Also are classes some schedules show as well.
	Also []check.Class
	// Clients is the smallest barrier (clients, all members) that shows
	// a barrier exhibit's defect; Rounds the rounds each client needs.
	Clients, Rounds int
	// Single: the barrier exhibit's defect is in the single barrier,
	// which the harness drives instead of the double one.
	Single bool

	_ struct{}
}

// Exhibits returns every exhibit, the lock family's then the barriers',
// in a fixed order.
func Exhibits() []Exhibit { return append(Locks(), Barriers()...) }

// Locks returns the lock-family exhibits (locks, read/write locks,
// elections, semaphores), in a fixed order: those whose Recipe is set,
// which harness.Lock drives.
func Locks() []Exhibit {
	exs := []Exhibit{
		{
			Name: NameDirWatch, Recipe: dirWatch(),
			Origin: "the queue lock of blog posts and Chinese-language articles that " +
				"watches the lock directory; the ZooKeeper recipes page warns against it",
			Bug: "every waiter keeps a getChildren watch on the directory, so every " +
				"release (and every newcomer) wakes all waiters",
			Scenarios: []int{7}, Violation: check.Herd,
		},
		{
			Name: NameSingleNode, Recipe: singleNode(),
			Origin: `the "/exclusive_lock/lock" exclusive lock of Chinese-language ` +
				"ZooKeeper articles and books",
			Bug: "all losers watch the directory's children and race on create after " +
				"every release; no queue, no fairness",
			Scenarios: []int{7}, Violation: check.Herd, Also: []check.Class{check.MutualExclusion},
		},
		{
			Name: NameHerdShared, Recipe: herdShared(),
			Origin: `the "/shared_lock/<host>-R|W-<seq>" shared lock of the same ` +
				"articles, every contender watching the directory",
			Bug: "a writer's release wakes every waiter, also writers and readers " +
				"behind the next writer, who cannot proceed",
			Scenarios: []int{7}, Violation: check.Herd,
		},
		{
			Name: NameNoGUIDRetry, Recipe: noGUIDRetry(),
			Origin: "the recipes page's lock before ZOOKEEPER-1262 added the GUID; " +
				"zk-ruby/zk#54; samuel/go-zookeeper#229",
			Bug: "after a create whose reply was lost it creates again without " +
				"looking, and waits forever on its own first node",
			Scenarios: []int{1}, Violation: check.Deadlock, Also: []check.Class{check.Orphan},
		},
		{
			Name: NameAssumeOnWake, Recipe: assumeOnWake(),
			Origin: "the blog-post simplification: the predecessor's NodeDeleted " +
				"means the lock is mine",
			Bug: "woken by a predecessor that gave up while an earlier node still " +
				"holds, it holds too, without listing again",
			Scenarios: []int{5}, Violation: check.MutualExclusion,
		},
		{
			Name: NameExistsAbsence, Recipe: existsAbsence(),
			Origin: "the recipes page's step 5 misread: exists(predecessor) null " +
				"taken as acquisition",
			Bug: "a predecessor that gave up between getChildren and exists makes " +
				"it hold while an earlier node still holds",
			Scenarios: []int{4, 5}, Violation: check.MutualExclusion,
		},
		{
			Name: NameTimeoutLeak, Recipe: timeoutLeak(),
			Origin: "CURATOR-202; micro-fan/aiozk#34 (dead lock on acquire timeout)",
			Bug: "when ctx ends while waiting it returns without deleting its node, " +
				"which blocks everyone behind it until its session ends",
			Scenarios: []int{6}, Violation: check.Deadlock, Also: []check.Class{check.Orphan},
		},
		{
			Name: NameDeleteFirstChild, Recipe: deleteFirstChild(),
			Origin: "blog-post locks whose unlock deletes the first child of the " +
				"sorted directory",
			Bug: "a holder whose node is already gone (session expired, or a retried " +
				"delete whose reply was lost) deletes the next holder's node",
			Scenarios: []int{3, 6}, Violation: check.MutualExclusion,
		},
		{
			Name: NameSplitDash, Recipe: splitDash(),
			Origin: `code written for names "<prefix>-<seq>" reading names with a ` +
				"holder id in them; ZOOKEEPER-2931",
			Bug: "nodes are ordered by what follows the first '-', the holder id, so " +
				"a newcomer can sort before the holder and hold too",
			Scenarios: []int{10}, Violation: check.MutualExclusion,
		},
		{
			Name: NameGoZKLock, Recipe: goZKLock(),
			Origin: "go-zookeeper v1.0.4 zk.Lock and CreateProtectedEphemeralSequential; " +
				"samuel/go-zookeeper#229",
			Bug: "any error after the create returns without deleting the node, which " +
				"blocks the queue; sequence numbers past 2^31-1 grant twice; a lost create " +
				"adopts a dying session's node",
			Scenarios: []int{1, 2, 6, 8, 10}, Violation: check.Orphan,
			Also: []check.Class{check.Deadlock, check.MutualExclusion},
		},
		{
			Name: NameAdoptDying, Recipe: adoptDying(),
			Origin: "Curator's protected mode until the CURATOR-498 fix (2019): the " +
				"lost create is found by the GUID in its name alone",
			Bug: "after a lost create on a session the client has since given up, " +
				"it adopts the old session's node, which goes when that session expires " +
				"while the adopter goes on holding",
			Scenarios: []int{2}, Violation: check.MutualExclusion,
		},
		{
			Name: NameElectHerd, Recipe: electHerd(),
			Origin: "the election the ZooKeeper recipes page sets aside, and blog posts' " +
				"naive one: every follower watches the leader's node",
			Bug: "a leader change wakes every follower, and all list again, though " +
				"only the next one can lead",
			Scenarios: []int{7}, Violation: check.Herd,
		},
		{
			Name: NameElectCached, Recipe: electCached(),
			Origin: "elections that keep the term in a counter znode, which a candidate " +
				"reads when it joins and increments when it wins",
			Bug: "candidates that joined under one leader cached the same value, so the " +
				"next leaders take one term, or a lower one",
			Scenarios: []int{3}, Violation: check.SharedTerm,
			Also: []check.Class{check.TermOrder, check.Fencing},
		},
		{
			Name: NameElectUnfenced, Recipe: electUnfenced(),
			Origin: "kazoo's Election and Curator's LeaderSelector: no fenced write, " +
				"a leader not told it lost (CURATOR-54, CURATOR-220)",
			Bug: "a leader paused past its session's timeout resumes unaware that it was " +
				"replaced and writes with its old term after the new leader",
			Scenarios: []int{3}, Violation: check.Fencing,
		},
	}
	exs = append(exs, semaphoreExhibits()...)
	return append(exs, timerExhibits()...)
}

// Lookup returns the exhibit with the given name.
func Lookup(name string) (Exhibit, bool) {
	for _, e := range Exhibits() {
		if e.Name == name {
			return e, true
		}
	}
	return Exhibit{}, false
}
