package zoo

import (
	"context"
	"strconv"
	"strings"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/internal/queue"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// Names of the semaphore exhibits.
const (
	NameSemMixedMax    = "zoo/semmixedmax"
	NameSemDirWatch    = "zoo/semdirwatch"
	NameSemTimeoutLeak = "zoo/semtimeoutleak"
)

// semLeases is the N of the semaphore exhibits (their Recipe.Leases): the
// smallest that is not a lock.
const semLeases = 2

// leaseKind names the semaphore exhibits' nodes, "lease-<id>-<seq>".
const leaseKind = "lease"

// semaphoreExhibits are the broken counting semaphores, in their order
// at the end of Exhibits.
func semaphoreExhibits() []Exhibit {
	return []Exhibit{
		{
			Name: NameSemMixedMax, Recipe: semMixedMax(),
			Origin: "Curator's InterProcessSemaphoreV2, which counts the lease nodes " +
				"against each client's own maxLeases (its javadoc: all processes must " +
				"use the same maxLeases)",
			Bug: "clients that disagree on N count the same lease nodes against " +
				"different limits, so one with the larger N holds beside N others",
			Scenarios: []int{11}, Violation: check.MaxLeases,
		},
		{
			Name: NameSemDirWatch, Recipe: semDirWatch(),
			Origin: "the counting semaphore of blog posts: a sequential node, then " +
				"getChildren with a watch until fewer than N are ahead",
			Bug: "every waiter keeps a child watch on the directory, so every " +
				"release (and every newcomer) wakes all waiters, of whom one can proceed",
			Scenarios: []int{7}, Violation: check.Herd,
		},
		{
			Name: NameSemTimeoutLeak, Recipe: semTimeoutLeak(),
			Origin: "CURATOR-315 and CURATOR-335 (InterProcessSemaphoreV2 lease nodes " +
				"left behind by a timed or interrupted acquire); python-zk/kazoo#429",
			Bug: "a waiter whose deadline passes returns without deleting its node, " +
				"which takes a lease nobody uses until its session ends",
			Scenarios: []int{6}, Violation: check.Orphan, Also: []check.Class{check.Deadlock},
		},
	}
}

// semaphoreVariants are the semaphore exhibits that are the queue
// semaphore with one step swapped (semMixedMax's defect is its rule).
func semaphoreVariants() []variant {
	return []variant{
		{name: NameSemDirWatch, step: "Watch", steps: queue.Steps{Watch: watchDir}, leases: semLeases},
		{name: NameSemTimeoutLeak, step: "Abandon", steps: queue.Steps{Abandon: stayOnTimeout}, leases: semLeases},
	}
}

// firstN is the rule of a counting semaphore of n leases on the queue:
// the first n members hold; a waiter waits on the member just before it,
// so that a give-up or a grant ahead wakes one waiter. It is correct but
// slow: a lease freed ahead of a waiter's predecessor waits until the
// predecessor changes too (the good semaphore, package semaphore, keeps
// its holders apart from its queue and has its first waiter watch the
// holders).
func firstN(n int) queue.Rule {
	return func(ms []queue.Member, i int, _ map[string]bool) (string, bool) {
		if i < n {
			return "", true
		}
		return ms[i-1].Name, false
	}
}

// semaphoreRecipe is the queue semaphore of v.leases leases with v's
// steps: nodes "lease-<id>-<seq>", the rule firstN.
func (v variant) semaphoreRecipe() recipe.Lock {
	return recipe.Lock{Name: v.name, Acquire: v.acquire(leaseKind, []string{leaseKind}, firstN(v.leases)), Leases: v.leases}
}

// semDirWatch is the counting semaphore of 2 leases that watches the
// whole directory: each contender creates "lease-<id>-<seq>", lists the
// directory, holds if fewer than 2 members are ahead of it, and otherwise
// waits for any change among the directory's children before listing
// again. It is otherwise the queue semaphore (lost-create lookup, numeric
// order, cleanup on failure): the queue with its Watch step swapped, as
// dirWatch.
//
// Origin: the counting semaphore of blog posts, the lock of dirWatch with
// "first" read as "among the first N".
//
// Bug (docs/zk-semantics.md bug scenario 7): every waiter holds a child
// watch on the directory, so a release wakes every waiter, and they all
// list again although one can take the freed lease. Violation: herd.
func semDirWatch() recipe.Lock { return queued(NameSemDirWatch) }

// semTimeoutLeak is the queue semaphore of 2 leases whose Acquire, when
// ctx ends while it waits, returns ctx's error and leaves its node behind:
// the queue with its Abandon step swapped, as timeoutLeak.
//
// Origin: CURATOR-315 and CURATOR-335 (InterProcessSemaphoreV2 lease
// nodes left behind when an acquire times out or is interrupted, as the
// semaphore package's doc lists them); kazoo #429 (zombie nodes after
// network errors). The good semaphore deletes its node on every failure.
//
// Bug (docs/zk-semantics.md bug scenario 6): the abandoned node counts as
// a member: once the members before it go, it takes one of the N leases,
// which nobody uses, until the session that made it ends (for a
// long-lived client process, forever). With N such nodes everyone waits.
// Violation: orphan, and deadlock when the abandoned nodes fill the N
// leases.
func semTimeoutLeak() recipe.Lock { return queued(NameSemTimeoutLeak) }

// semMixedMax is the queue semaphore (lost-create lookup, numeric order,
// one watch on the predecessor, re-listing after every wake-up, cleanup
// on failure) in which each client counts the members ahead of it against
// its own N: 2, or 3 for the holder ids of even-numbered clients ("c2_0",
// "c4_1": the harness's ids). Its Recipe says 2 leases.
//
// Origin: Curator's InterProcessSemaphoreV2, whose maxLeases is each
// client's own argument (or a SharedCount each client reads); its javadoc
// requires every process to use the same value, and nothing checks it.
// kazoo's Semaphore stores max_leases in the directory's data and refuses
// a client that disagrees.
//
// Bug: a client whose N is larger holds while N others of a smaller N
// hold: more leases at once than the semaphore has. (The good semaphore
// puts N in every node name and refuses a member of another N ahead of
// it.) Violation: max-leases.
func semMixedMax() recipe.Lock {
	return recipe.Lock{
		Name: NameSemMixedMax,
		Acquire: func(ctx context.Context, conn zkapi.Conn, dir, id string) (recipe.Held, error) {
			if err := checkArgs(dir, id); err != nil {
				return nil, err
			}
			h, err := queue.Enqueue(ctx, queue.Queue{Conn: conn, Dir: dir}, queue.Request{
				Kind: leaseKind, GUID: id, Data: []byte(id),
				Kinds: []string{leaseKind}, Rule: firstN(clientMax(id)),
			})
			if err != nil {
				return nil, wrap(NameSemMixedMax, dir, err)
			}
			return held{h}, nil
		},
		Leases: semLeases,
	}
}

// clientMax is the N a semMixedMax client believes in: one more than the
// semaphore's for the holder ids "c<k>_<i>" of an even k.
func clientMax(id string) int {
	client, _, ok := strings.Cut(strings.TrimPrefix(id, "c"), "_")
	if k, err := strconv.Atoi(client); ok && err == nil && strings.HasPrefix(id, "c") && k%2 == 0 {
		return semLeases + 1
	}
	return semLeases
}
