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

	"go.uber.org/goleak"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/fakezk/server"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
	"github.com/zksim/zksim/zktest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fake is one in-process fakezk server for one test.
type fake struct {
	srv  *server.Server
	addr string
}

func newFake(t *testing.T) *fake {
	t.Helper()
	srv, err := server.New(server.Config{Machine: fakezk.Config{Seed: 1, TickMillis: 500}, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	addr, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return &fake{srv: srv, addr: addr.String()}
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
	f.srv.Inspect(func(m *fakezk.Machine) {
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

// ctxFor bounds a test, so that a lost wake-up fails it instead of hanging it.
func ctxFor(t *testing.T, d time.Duration) context.Context { return zktest.Context(t, d) }

// hangWindow is how long a contender parked on a node that will not go is
// watched to confirm it does not acquire: the verdict "hang".
const hangWindow = 2 * time.Second

// waitParked waits until session has a data watch on a child of dir (a
// contender parked on its predecessor) and returns that child's path.
func (f *fake) waitParked(t *testing.T, ctx context.Context, session int64, dir string) string {
	t.Helper()
	var on string
	err := f.srv.WaitUntil(ctx, func(m *fakezk.Machine) bool {
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
	ns := f.nodes(dir)
	if len(ns) != 1 || ns[0].Owner != holder {
		t.Fatalf("directory = %+v, want the holder's node only", ns)
	}
	target := dir + "/" + ns[0].Name
	fired := new(atomic.Int32)
	f.srv.Intercept(func(m *fakezk.Machine, session int64, req fakezk.Request) fakezk.Fault {
		var p string
		switch r := req.(type) {
		case fakezk.GetData:
			p = r.Path
		case fakezk.Exists:
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

// watchCount is the number of watches the server holds.
func (f *fake) watchCount() int {
	var n int
	f.srv.Inspect(func(m *fakezk.Machine) { n = m.WatchCount(0) })
	return n
}
