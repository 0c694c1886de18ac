package interop_test

import (
	"context"
	"errors"
	"path"
	"slices"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/proto"

	"go.uber.org/goleak"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fake is one in-process fakezk server for one test.
type fake struct {
	srv  *netserver.Server
	addr string
}

func newFake(t *testing.T) *fake {
	t.Helper()
	srv, addr := zktest.ServeFake(t, netserver.Config{Machine: machine.Config{Seed: 1, TickMillis: 500}, Logf: t.Logf})
	return &fake{srv: srv, addr: addr}
}

// mkdir creates the persistent node p (and its parents) through a
// short-lived session of its own.
func (f *fake) mkdir(t *testing.T, ctx context.Context, p string) {
	t.Helper()
	admin := zktest.Dial(t, ctx, []string{f.addr}, gozk.Config{})
	defer admin.Close()
	for i := 1; i <= len(p); i++ {
		if i == len(p) || p[i] == '/' {
			if _, err := admin.Create(ctx, p[:i], nil, zkapi.Persistent); err != nil && !isExists(err) {
				t.Fatalf("create %s: %v", p[:i], err)
			}
		}
	}
}

func isExists(err error) bool { return errors.Is(err, zkapi.ErrNodeExists) }

// node is a child of a lock directory as the server sees it.
type node struct {
	Name  string
	Owner int64 // ephemeralOwner
	Alive bool  // the owner session is alive
}

// nodes lists dir's children, sorted by name, with their owners.
func (f *fake) nodes(dir string) []node {
	var out []node
	f.srv.Inspect(func(m *machine.Machine) {
		for _, k := range m.Children(dir) {
			_, st, ok := m.Node(path.Join(dir, k))
			if ok {
				out = append(out, node{Name: k, Owner: st.EphemeralOwner, Alive: m.Alive(st.EphemeralOwner)})
			}
		}
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// scenario starts a fake for one test with the lock directory dir made,
// and returns a context bounding the test, so that a lost wake-up fails it
// instead of hanging it.
func scenario(t *testing.T, dir string) (*fake, context.Context) {
	t.Helper()
	f := newFake(t)
	ctx := zktest.Context(t, 30*time.Second)
	f.mkdir(t, ctx, dir)
	return f, ctx
}

// loseCreateReply stages scenario 1: the server applies session's next
// create in dir and drops its reply.
func (f *fake) loseCreateReply(t *testing.T, dir string, session int64) {
	t.Helper()
	if _, err := f.srv.LoseReply(netserver.Match{Op: "create", Path: dir + "/", Session: session}); err != nil {
		t.Fatal(err)
	}
}

// loseChildren stages scenario 2: the connection drops on session's next
// getChildren of dir, before the server sees it.
func (f *fake) loseChildren(t *testing.T, dir string, session int64) {
	t.Helper()
	if _, err := f.srv.LoseRequest(netserver.Match{Op: "children", Path: dir, Session: session}); err != nil {
		t.Fatal(err)
	}
}

// faultFired fails t unless every staged fault has fired: otherwise the
// test measured the recipe without its fault.
func (f *fake) faultFired(t *testing.T) {
	t.Helper()
	if p := f.srv.Faults(); len(p) != 0 {
		t.Fatalf("the fault never fired: %v", p)
	}
}

// only fails t unless dir holds exactly one node and match accepts it
// (want says whose it should be), and returns that node.
func (f *fake) only(t *testing.T, dir, want string, match func(node) bool) node {
	t.Helper()
	ns := f.nodes(dir)
	if len(ns) != 1 || !match(ns[0]) {
		t.Fatalf("lock directory = %+v, want only %s", ns, want)
	}
	return ns[0]
}

// ownedBy matches the nodes of session.
func ownedBy(session int64) func(node) bool {
	return func(n node) bool { return n.Owner == session }
}

// noOrphan fails t if dir holds any node after a release; after names it.
func (f *fake) noOrphan(t *testing.T, dir, after string) {
	t.Helper()
	if ns := f.nodes(dir); len(ns) != 0 {
		t.Fatalf("after %s the directory holds %+v: an orphan", after, ns)
	}
}

// hangWindow is how long a contender parked on a node that will not go is
// watched to confirm it does not acquire: the verdict "hang".
const hangWindow = 2 * time.Second

// waitParked waits until session has a data watch on a child of dir (a
// contender parked on its predecessor) and returns that child's path.
func (f *fake) waitParked(t *testing.T, ctx context.Context, session int64, dir string) string {
	t.Helper()
	var on string
	err := f.srv.WaitUntil(ctx, func(m *machine.Machine) bool {
		for _, k := range m.Children(dir) {
			data, _ := m.Watchers(0, dir+"/"+k)
			if slices.Contains(data, session) {
				on = dir + "/" + k
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("session %#x never parked on a node of %s: %v", session, dir, err)
	}
	return on
}

// expireBeforeWatch stages scenario 4: when session watcher reads (getData
// or exists) holder's lock node in dir, holder's session is expired first,
// so the read finds the node gone. It returns the number of times the
// expiry fired.
func (f *fake) expireBeforeWatch(t *testing.T, dir string, holder, watcher int64) *atomic.Int32 {
	t.Helper()
	target := dir + "/" + f.only(t, dir, "the holder's node", ownedBy(holder)).Name
	fired := new(atomic.Int32)
	f.srv.Intercept(func(m *machine.Machine, session int64, req proto.Request) fakezk.Fault {
		var p string
		switch r := req.(type) {
		case proto.GetData:
			p = r.Path
		case proto.Exists:
			p = r.Path
		}
		if session == watcher && p == target && m.Alive(holder) {
			m.Expire(holder)
			fired.Add(1)
		}
		return fakezk.Deliver
	})
	return fired
}

// predecessorGone checks the end of scenario 4, once B holds: the staged
// expiry fired once, dir holds B's node only (want, match) and no watch is
// left on the server, not even on the vanished node.
func (f *fake) predecessorGone(t *testing.T, dir string, fired *atomic.Int32, want string, match func(node) bool) {
	t.Helper()
	if n := fired.Load(); n != 1 {
		t.Fatalf("the staged expiry fired %d times, want 1", n)
	}
	f.only(t, dir, want, match)
	if n := f.watchCount(); n != 0 {
		t.Fatalf("%d watches left on the server, want none", n)
	}
}

// watchCount is the number of watches the server holds.
func (f *fake) watchCount() int {
	var n int
	f.srv.Inspect(func(m *machine.Machine) { n = m.WatchCount(0) })
	return n
}
