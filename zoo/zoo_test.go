package zoo_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/zksim/zksim/check"
	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zoo"
)

var classes = []check.Class{check.MutualExclusion, check.MaxLeases, check.Herd, check.Deadlock, check.Orphan, check.SharedTerm, check.Fencing}

// lockRecipes are the lock-family exhibits' recipes.
func lockRecipes() []recipe.Lock {
	var rs []recipe.Lock
	for _, ex := range zoo.Locks() {
		rs = append(rs, ex.Recipe)
	}
	return rs
}

func TestExhibits_Catalog(t *testing.T) {
	exs := zoo.Locks()
	if len(exs) != 20 {
		t.Fatalf("%d lock exhibits, want 20", len(exs))
	}
	seen := map[string]bool{}
	for i, ex := range exs {
		switch {
		case seen[ex.Name]:
			t.Errorf("%s listed twice", ex.Name)
		case ex.Name != ex.Recipe.Name || ex.Barrier.Name != "" || ex.Clients != 0 || ex.Rounds != 0 || ex.Single:
			t.Errorf("exhibit %d: name %q, recipe %q, barrier %q %d %d %v", i, ex.Name, ex.Recipe.Name, ex.Barrier.Name, ex.Clients, ex.Rounds, ex.Single)
		case ex.Origin == "" || ex.Bug == "" || len(ex.Scenarios) == 0:
			t.Errorf("%s: origin, bug or scenarios missing", ex.Name)
		case !slices.Contains(classes, ex.Violation) || slices.Contains(ex.Also, ex.Violation):
			t.Errorf("%s: violation %q, also %v", ex.Name, ex.Violation, ex.Also)
		case (ex.Recipe.AcquireRead != nil) != (ex.Name == zoo.NameHerdShared):
			t.Errorf("%s: AcquireRead is for the shared lock only", ex.Name)
		case (ex.Recipe.Leases > 1) != strings.HasPrefix(ex.Name, "zoo/sem"):
			t.Errorf("%s: Leases %d; a semaphore's is above 1, a lock's 0", ex.Name, ex.Recipe.Leases)
		case (ex.Violation == check.MaxLeases) != (ex.Name == zoo.NameSemMixedMax || ex.Name == zoo.NameSemBusyCount):
			t.Errorf("%s: %s; only the semaphores that over-grant show it", ex.Name, ex.Violation)
		}
		for _, n := range ex.Scenarios {
			if n < 1 || n > 11 {
				t.Errorf("%s: docs/zk-semantics.md has no bug scenario %d", ex.Name, n)
			}
		}
		seen[ex.Name] = true
		if got, ok := zoo.Lookup(ex.Name); !ok || got.Name != ex.Name {
			t.Errorf("Lookup(%q) = %q, %v", ex.Name, got.Name, ok)
		}
	}
	if _, ok := zoo.Lookup("lock"); ok {
		t.Error("Lookup found the good lock in the zoo")
	}
}

// Without faults and without contention, every exhibit is a lock: it
// creates a missing directory, acquires, releases, and leaves no node.
// Shared locks let two readers hold at once.
func TestExhibits_PlainRun(t *testing.T) {
	for _, r := range append(lockRecipes(), zoo.Mutex()) {
		t.Run(r.Name, func(t *testing.T) {
			e := newEnv(t)
			e.dir = "/fresh/dir"
			for _, id := range []string{"a", "b", "a"} {
				e.release(e.holder(r.Acquire, id))
			}
			if r.AcquireRead != nil {
				r1, r2 := e.start(r.AcquireRead, "r1"), e.start(r.AcquireRead, "r2")
				e.mustHold(r1)
				e.mustHold(r2)
				e.release(r1)
				e.release(r2)
			}
			if kids := inspect(e, func(m *machine.Machine) []string { return m.Children(e.dir) }); len(kids) != 0 {
				t.Fatalf("nodes left behind: %v", kids)
			}
		})
	}
}

// Node names and data derive only from the holder id: two servers given
// the same calls hold the same nodes.
func TestExhibits_NamesDeterministic(t *testing.T) {
	for _, r := range lockRecipes() {
		t.Run(r.Name, func(t *testing.T) {
			var runs [2]string
			for i := range runs {
				e := newEnv(t)
				e.holder(r.Acquire, "holder.7")
				runs[i] = inspect(e, func(m *machine.Machine) string {
					kids := m.Children(e.dir)
					data, _, _ := m.Node(e.dir + "/" + kids[0])
					return fmt.Sprintf("%v %q", kids, data)
				})
			}
			if runs[0] != runs[1] {
				t.Fatalf("runs differ: %s, %s", runs[0], runs[1])
			}
		})
	}
}

// renewingConn learns, just before its first create in dir, that its
// session expired, and sends the create under the session that replaced
// it, as go-zookeeper does with a request queued during an outage.
type renewingConn struct {
	fakezk.Conn
	srv     *fakezk.Server
	dir     string
	renewed bool
}

func (c *renewingConn) Create(ctx context.Context, path string, data []byte, mode zkapi.CreateMode) (string, error) {
	if !c.renewed && strings.HasPrefix(path, c.dir+"/") {
		c.renewed = true
		if err := c.srv.Expire(c.Session().ID); err != nil {
			return "", err
		}
	}
	return c.Conn.Create(ctx, path, data, mode)
}

// A node created under a session that replaced the one the recipe saw
// before the create is the recipe's: it holds, and its release leaves
// nothing behind (a recipe that took the node for the dead session's
// would give up and leave it, an orphan).
func TestExhibits_CreateUnderRenewedSession(t *testing.T) {
	for _, r := range append(lockRecipes(), zoo.Mutex()) {
		t.Run(r.Name, func(t *testing.T) {
			e := newEnv(t)
			c := &renewingConn{Conn: e.connect(), srv: e.srv, dir: e.dir}
			h, err := r.Acquire(e.ctx, c, e.dir, "x")
			if err != nil {
				t.Fatalf("Acquire: %v", err)
			}
			if err := h.Release(e.ctx); err != nil {
				t.Fatalf("Release: %v", err)
			}
			if kids := inspect(e, func(m *machine.Machine) []string { return m.Children(e.dir) }); len(kids) != 0 {
				t.Fatalf("nodes left behind: %v", kids)
			}
		})
	}
}

func TestExhibits_RefuseBadArguments(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	for _, r := range lockRecipes() {
		for _, bad := range [][2]string{
			{"/zoo/lock", "has-dash"}, {"/zoo/lock", "sp ace"}, {"/zoo/lock", ""},
			{"/", "ok"}, {"rel", "ok"}, {"", "ok"}, {"/zoo/lock/", "ok"}, {"/zoo//lock", "ok"},
		} {
			if _, err := r.Acquire(e.ctx, c, bad[0], bad[1]); !errors.Is(err, recipe.ErrConfig) {
				t.Errorf("%s: Acquire(%q, %q) = %v, want ErrConfig", r.Name, bad[0], bad[1], err)
			}
		}
	}
	if kids, _, err := c.Children(e.ctx, e.dir); err != nil || len(kids) != 0 {
		t.Fatalf("refused calls left %v (%v)", kids, err)
	}
}

// The zoo and what a harness should find in each exhibit.
func ExampleExhibits() {
	for _, ex := range zoo.Exhibits() {
		fmt.Printf("%-20s %-16s scenarios %v\n", ex.Name, ex.Violation, ex.Scenarios)
	}
	// Output:
	// zoo/dirwatch         herd             scenarios [7]
	// zoo/singlenode       herd             scenarios [7]
	// zoo/herdshared       herd             scenarios [7]
	// zoo/noguidretry      deadlock         scenarios [1]
	// zoo/assumeonwake     mutual-exclusion scenarios [5]
	// zoo/existsabsence    mutual-exclusion scenarios [4 5]
	// zoo/timeoutleak      deadlock         scenarios [6]
	// zoo/deletefirstchild mutual-exclusion scenarios [3 6]
	// zoo/splitdash        mutual-exclusion scenarios [10]
	// zoo/gozk             orphan           scenarios [1 2 6 8 10]
	// zoo/adoptdying       mutual-exclusion scenarios [2]
	// zoo/electherd        herd             scenarios [7]
	// zoo/electcached      shared-term      scenarios [3]
	// zoo/electunfenced    fencing          scenarios [3]
	// zoo/semmixedmax      max-leases       scenarios [11]
	// zoo/semdirwatch      herd             scenarios [7]
	// zoo/semtimeoutleak   orphan           scenarios [6]
	// zoo/electabsence     mutual-exclusion scenarios [4 5]
	// zoo/liveabsence      mutual-exclusion scenarios [4 5]
	// zoo/sembusycount     max-leases       scenarios [11]
	// barrier/zoo/assumeonwake barrier-enter    scenarios []
	// barrier/zoo/noready  deadlock         scenarios []
	// barrier/zoo/leaveearly barrier-leave    scenarios []
	// barrier/zoo/dirleave herd             scenarios []
	// barrier/zoo/waitonerror barrier-wait     scenarios []
}
