package interop_test

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// Helpers shared by the recipe scenarios (docs/recipes-under-faults.md):
// kazoo's Semaphore, Election, Barrier and DoubleBarrier driven through
// scripts/kazoo-recipes-faults.py, and zksim's semaphore, election and
// barrier packages over zkapi/gozk, on the same fake and the same faults.

// kazooRecipe is one run of scripts/kazoo-recipes-faults.py: one kazoo
// client and one stock kazoo recipe object. Its "* ..." lines (connection
// states, and the sizes of its listings) are the Script's side lines.
type kazooRecipe struct {
	*zktest.Script
	session int64
	node    string // a double-barrier member's node name, once known
}

// startRecipe runs the script with --recipe recipe on path (and args)
// against the fake and waits for its session.
func startRecipe(t *testing.T, ctx context.Context, f *fake, recipe, path string, args ...string) *kazooRecipe {
	t.Helper()
	py := zktest.KazooPython(t)
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "kazoo-recipes-faults.py"))
	if err != nil {
		t.Fatal(err)
	}
	args = append([]string{script, "--hosts", f.addr, "--path", path, "--recipe", recipe}, args...)
	p := &kazooRecipe{Script: zktest.StartScript(t, ctx, "* ", py, args...)}
	line := p.Expect(t, ctx, `^session 0x[0-9a-f]+$`)
	if p.session, err = strconv.ParseInt(strings.TrimPrefix(line, "session 0x"), 16, 64); err != nil {
		t.Fatal(err)
	}
	return p
}

// do sends cmd and wants the next line to match re; it returns the line.
func (p *kazooRecipe) do(t *testing.T, ctx context.Context, cmd, re string) string {
	t.Helper()
	p.Send(t, cmd)
	return p.Expect(t, ctx, re)
}

// expired waits until kazoo has told its listener that the session was
// lost and that it connected again (on a new session); seen is a mark
// taken (Sides) before the expiry.
func (p *kazooRecipe) expired(t *testing.T, ctx context.Context, seen int) {
	t.Helper()
	p.WaitSide(t, ctx, seen, "state LOST")
	p.WaitSide(t, ctx, seen, "state CONNECTED")
}

// silent is the "hang" verdict: the script says nothing for hangWindow,
// while what should have ended it has happened.
func (p *kazooRecipe) silent(t *testing.T, ctx context.Context, who string) {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, hangWindow)
	defer cancel()
	if line, ok := p.Next(t, wctx); ok {
		t.Fatalf("%s said %q; measured: it hangs", who, line)
	}
	if ctx.Err() != nil {
		t.Fatal(ctx.Err())
	}
}

// waitWatch waits until session holds a watch on p: a data watch (getData
// or exists) if child is false, a child watch otherwise. That is how a
// test knows a client is parked, without sleeping.
func (f *fake) waitWatch(t *testing.T, ctx context.Context, session int64, p string, child bool) {
	t.Helper()
	err := f.srv.WaitUntil(ctx, func(m *machine.Machine) bool {
		data, kids := m.Watchers(0, p)
		if child {
			return slices.Contains(kids, session)
		}
		return slices.Contains(data, session)
	})
	if err != nil {
		t.Fatalf("session %#x never watched %s (child %v): %v", session, p, child, err)
	}
}

// loseListing stages "connection loss while listing": the connection of
// session drops on its next getChildren of exactly dir, before the server
// sees it. (A Match on the path would be a prefix, which also catches
// kazoo's Semaphore's lock directory dir+"-__lock__".) It returns the
// number of times it fired.
func (f *fake) loseListing(dir string, session int64) *atomic.Int32 {
	fired := new(atomic.Int32)
	f.srv.Intercept(func(_ *machine.Machine, s int64, req proto.Request) fakezk.Fault {
		if r, ok := req.(proto.GetChildren); ok && s == session && r.Path == dir && fired.Load() == 0 {
			fired.Add(1)
			return fakezk.LoseRequest
		}
		return fakezk.Deliver
	})
	return fired
}

// firedOnce fails t unless an intercepted fault fired exactly once.
func firedOnce(t *testing.T, fired *atomic.Int32) {
	t.Helper()
	if n := fired.Load(); n != 1 {
		t.Fatalf("the staged fault fired %d times, want 1", n)
	}
}

// data is the fake's data of node p.
func (f *fake) data(p string) string {
	var d []byte
	f.srv.Inspect(func(m *machine.Machine) { d, _, _ = m.Node(p) })
	return string(d)
}

// create makes the persistent node p with data through a short-lived
// session; its parent must exist.
func (f *fake) create(t *testing.T, ctx context.Context, p string, data []byte) {
	t.Helper()
	admin := zktest.Dial(t, ctx, []string{f.addr}, gozk.Config{})
	defer admin.Close()
	if _, err := admin.Create(ctx, p, data, zkapi.Persistent); err != nil {
		t.Fatalf("create %s: %v", p, err)
	}
}

// nodeOf returns the path of the one node of dir that session owns.
func (f *fake) nodeOf(t *testing.T, dir string, session int64) string {
	t.Helper()
	var ps []string
	for _, n := range f.nodes(dir) {
		if n.Owner == session {
			ps = append(ps, dir+"/"+n.Name)
		}
	}
	if len(ps) != 1 {
		t.Fatalf("session %#x owns %v in %s, want one node", session, ps, dir)
	}
	return ps[0]
}

// expireOnRead stages "the waiter ahead expires before the watch": when
// session reader reads (getData or exists) the node target, session victim
// is expired first, so the read finds target gone. It returns the number
// of times the expiry fired.
func (f *fake) expireOnRead(target string, victim, reader int64) *atomic.Int32 {
	fired := new(atomic.Int32)
	f.srv.Intercept(func(m *machine.Machine, session int64, req proto.Request) fakezk.Fault {
		var p string
		switch r := req.(type) {
		case proto.GetData:
			p = r.Path
		case proto.Exists:
			p = r.Path
		}
		if session == reader && p == target && m.Alive(victim) {
			m.Expire(victim)
			fired.Add(1)
		}
		return fakezk.Deliver
	})
	return fired
}
