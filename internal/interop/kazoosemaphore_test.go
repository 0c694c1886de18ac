package interop_test

import (
	"path"
	"regexp"
	"testing"
)

// The kazoo Semaphore scenarios (kazoo 2.8, recipe/lock.py). A lease is an
// ephemeral node <dir>/<uuid4 hex>, created by whoever holds kazoo's
// inner Lock at <dir>-__lock__ when fewer than max_leases children exist.

// TestKazooSemaphore_LostCreateReply (scenario 1): the create of the lease
// node is applied and its reply lost. The ConnectionLoss reaches
// KazooRetry, which runs _inner_acquire again; it first asks whether its
// fixed-name node exists ("Do we already have a lease?") and takes it:
// acquires, no orphan.
func TestKazooSemaphore_LostCreateReply(t *testing.T) {
	const dir = "/sems/lost-create/s" // made by kazoo: see scenario 4
	f, ctx := scenario(t, path.Dir(dir))
	a := startRecipe(t, ctx, f, "semaphore", dir, "--max-leases", "2")
	f.loseCreateReply(t, dir, a.session)
	name := a.do(t, ctx, "acquire", `^acquired [0-9a-f]{32}$`)[len("acquired "):]
	f.faultFired(t)
	f.only(t, dir, "A's lease "+name, func(n node) bool { return n.Name == name && n.Owner == a.session })
	a.do(t, ctx, "release", `^released True$`)
	f.noOrphan(t, dir, "A's release")
}

// TestKazooSemaphore_ConnLossListing (scenario 2): the connection drops on
// the getChildren of the lease directory (in _get_lease, under the inner
// lock). KazooRetry runs _inner_acquire again from the top: the inner
// lock is released and taken again, and the lease granted; no orphan.
func TestKazooSemaphore_ConnLossListing(t *testing.T) {
	const dir = "/sems/children-loss/s" // made by kazoo: see scenario 4
	f, ctx := scenario(t, path.Dir(dir))
	a := startRecipe(t, ctx, f, "semaphore", dir, "--max-leases", "2")
	fired := f.loseListing(dir, a.session)
	name := a.do(t, ctx, "acquire", `^acquired [0-9a-f]{32}$`)[len("acquired "):]
	firedOnce(t, fired)
	f.only(t, dir, "A's lease "+name, func(n node) bool { return n.Name == name && n.Owner == a.session })
	a.do(t, ctx, "release", `^released True$`)
	f.noOrphan(t, dir, "A's release")
	f.noOrphan(t, dir+"-__lock__", "the inner lock's release")
}

// TestKazooSemaphore_SessionExpiredWhileHolding (scenario 3): one lease; A
// holds, B waits (it holds the inner lock and a child watch on the
// directory). The server expires A's session; B acquires. kazoo's
// Semaphore registers a session listener only inside acquire, and it
// only wakes a pending acquire: A's is_acquired stays True while B holds,
// and release() swallows the NoNodeError and returns True. Silent loss,
// two holders of a one-lease semaphore as far as each can tell.
func TestKazooSemaphore_SessionExpiredWhileHolding(t *testing.T) {
	const dir = "/sems/expired-holder/s" // made by kazoo: see scenario 4
	f, ctx := scenario(t, path.Dir(dir))
	a := startRecipe(t, ctx, f, "semaphore", dir)
	b := startRecipe(t, ctx, f, "semaphore", dir)
	name := a.do(t, ctx, "acquire", `^acquired `)[len("acquired "):]
	b.Send(t, "acquire")
	f.waitWatch(t, ctx, b.session, dir, true)
	seen := a.Sides()
	if err := f.srv.Expire(a.session); err != nil {
		t.Fatal(err)
	}
	b.Expect(t, ctx, `^acquired `)
	a.expired(t, ctx, seen)
	line := a.do(t, ctx, "check", `^check `)
	want := regexp.MustCompile(`^check is_acquired=True node=` + name + ` session=0x[0-9a-f]+$`)
	if !want.MatchString(line) {
		t.Fatalf("A after its session expired, while B holds: %q; measured: %q", line, want)
	}
	a.do(t, ctx, "release", `^released True$`)
	f.only(t, dir, "B's lease", ownedBy(b.session))
}

// TestKazooSemaphore_MaxLeasesMismatch (scenario 4): A holds the only
// lease of a semaphore of 1; B, configured with 2 leases, acquires.
// kazoo stores max_leases as the data of the directory, but writes it
// only when it creates the directory itself (_ensure_path), and skips the
// check when the data is not a number. So:
//   - fresh: A's acquire made the directory and wrote "1"; B fails with
//     ValueError "Inconsistent max leases" (survives: refused loudly);
//   - empty: the directory existed with empty data (made beforehand by
//     an admin or a deployment tool); nobody writes the count and no
//     check is made: B acquires while A holds, two holders of a
//     one-lease semaphore (over-granted);
//   - null: the directory existed with null data, as go-zookeeper,
//     zkCli's "create /dir" and zksim's semaphore make it; kazoo calls
//     None.decode and every acquire fails with AttributeError, which
//     its ValueError/TypeError guard does not catch, whatever N.
//     (A real 3.8.0 server returns null data to kazoo as None too.)
func TestKazooSemaphore_MaxLeasesMismatch(t *testing.T) {
	t.Run("fresh", func(t *testing.T) {
		const dir = "/sems/mismatch/fresh"
		f, ctx := scenario(t, path.Dir(dir))
		a := startRecipe(t, ctx, f, "semaphore", dir)
		b := startRecipe(t, ctx, f, "semaphore", dir, "--max-leases", "2")
		a.do(t, ctx, "acquire", `^acquired `)
		if got := f.data(dir); got != "1" {
			t.Fatalf("directory data %q, want kazoo's max_leases 1", got)
		}
		b.do(t, ctx, "acquire", `^error ValueError: Inconsistent max leases: 1, expected: 2$`)
		f.only(t, dir, "A's lease", ownedBy(a.session))
	})
	t.Run("empty", func(t *testing.T) {
		const dir = "/sems/mismatch/empty"
		f, ctx := scenario(t, path.Dir(dir))
		f.create(t, ctx, dir, []byte{})
		a := startRecipe(t, ctx, f, "semaphore", dir)
		b := startRecipe(t, ctx, f, "semaphore", dir, "--max-leases", "2")
		a.do(t, ctx, "acquire", `^acquired `)
		b.do(t, ctx, "acquire", `^acquired `)
		if ns := f.nodes(dir); len(ns) != 2 {
			t.Fatalf("directory %+v; measured: both A (1 lease) and B (2 leases) hold", ns)
		}
	})
	t.Run("null", func(t *testing.T) {
		const dir = "/sems/mismatch/null"
		f, ctx := scenario(t, dir)
		a := startRecipe(t, ctx, f, "semaphore", dir)
		a.do(t, ctx, "acquire", `^error AttributeError: 'NoneType' object has no attribute 'decode'$`)
		f.noOrphan(t, dir, "A's failed acquire")
	})
}

// TestKazooSemaphore_WaiterAheadExpiresBeforeWatch (scenario 5): one
// lease; A holds; B waits for a lease, holding kazoo's inner lock; C
// queues on the inner lock, lists it and sees B's lock node; B's session
// expires just before C's read of that node. kazoo's Lock lists again
// and C takes the inner lock, then waits on the lease directory; once A
// releases, C acquires. Survives.
func TestKazooSemaphore_WaiterAheadExpiresBeforeWatch(t *testing.T) {
	const dir = "/sems/dying-waiter/s"
	f, ctx := scenario(t, path.Dir(dir))
	a := startRecipe(t, ctx, f, "semaphore", dir)
	b := startRecipe(t, ctx, f, "semaphore", dir)
	c := startRecipe(t, ctx, f, "semaphore", dir)
	a.do(t, ctx, "acquire", `^acquired `)
	b.Send(t, "acquire")
	f.waitWatch(t, ctx, b.session, dir, true)
	fired := f.expireOnRead(f.nodeOf(t, dir+"-__lock__", b.session), b.session, c.session)
	c.Send(t, "acquire")
	f.waitWatch(t, ctx, c.session, dir, true)
	firedOnce(t, fired)
	a.do(t, ctx, "release", `^released True$`)
	c.Expect(t, ctx, `^acquired `)
	f.only(t, dir, "C's lease", ownedBy(c.session))
}
