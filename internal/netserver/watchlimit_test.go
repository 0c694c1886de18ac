package netserver_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/wire"
)

// watcher is a raw client session that sets watches: each request gets
// the next xid, and answer reads up to its reply.
type watcher struct {
	*rawConn
	t      *testing.T
	addr   string
	xid    int32
	id     int64
	passwd []byte
	events int // notifications read so far
}

func newWatcher(t *testing.T, addr string) *watcher {
	w := &watcher{rawConn: dialRaw(t, addr), t: t, addr: addr}
	w.id, w.passwd, _ = w.handshake(4000, 0, nil)
	return w
}

// do sends a request built for the next xid and returns its reply's
// error code, or io.EOF if the server closed the connection instead.
func (w *watcher) do(build func(xid int32) []byte) (int32, error) {
	w.t.Helper()
	w.xid++
	w.write(build(w.xid))
	for {
		b, err := w.frame(5 * time.Second)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				w.t.Fatalf("session %#x, xid %d: %v", w.id, w.xid, err)
			}
			return 0, err
		}
		switch xid := int32(binary.BigEndian.Uint32(b)); xid {
		case -1:
			w.events++
		case w.xid:
			return int32(binary.BigEndian.Uint32(b[12:])), nil
		}
	}
}

// watch sets an exists watch on path; it fails the test unless the
// outcome is want (true: answered, false: connection closed).
func (w *watcher) watch(path string, want bool) {
	w.t.Helper()
	_, err := w.do(func(xid int32) []byte { return exists(xid, path, true) })
	if got := err == nil; got != want {
		w.t.Fatalf("session %#x: exists %s with a watch answered %v (%v), want %v", w.id, path, got, err, want)
	}
}

// resume reconnects to the session after its connection closed.
func (w *watcher) resume() {
	w.t.Helper()
	w.rawConn = dialRaw(w.t, w.addr)
	if id, _, _ := w.handshake(4000, w.id, w.passwd); id != w.id {
		w.t.Fatalf("resuming session %#x: got %#x", w.id, id)
	}
}

func refusals(t *testing.T, srv *netserver.Server, session, total int) {
	t.Helper()
	if s, all := netserver.WatchRefusals(srv); s != session || all != total {
		t.Errorf("refusals: %d per session and %d in total, want %d and %d", s, all, session, total)
	}
}

// TestServer_MaxSessionWatches: with a cap of 3 watches a session, a
// request for a 4th closes the connection (counted, the session lives
// on), while a watch re-set, another session's watches and the capped
// session's requests without watches go through; once a watch fires the
// session may set another; addWatch counts two.
func TestServer_MaxSessionWatches(t *testing.T) {
	checkLeaks(t)
	var warned lines
	srv, addr := newFake(t, netserver.Config{
		Machine: machine.Config{TickMillis: 500}, MaxSessionWatches: 3, MaxWatches: -1, Warnf: warned.add,
	})
	a, b := newWatcher(t, addr), newWatcher(t, addr)
	for _, p := range []string{"/a", "/b", "/c", "/a"} { // the second /a is held already
		a.watch(p, true)
	}
	for _, p := range []string{"/a", "/b", "/c"} {
		b.watch(p, true)
	}
	if code, err := a.do(func(xid int32) []byte { return getData(xid, "/", false) }); err != nil || code != 0 {
		t.Fatalf("a read without a watch at the cap: code %d, %v", code, err)
	}
	a.watch("/d", false)
	refusals(t, srv, 1, 0)
	want := fmt.Sprintf("session %#x: closing the connection, the session lives on: netserver: watch limit reached: "+
		"it would hold 4 watches, over the per-session cap of 3 (Config.MaxSessionWatches, zksim serve -max-session-watches)", a.id)
	if got := warned.all(); len(got) != 1 || !strings.HasSuffix(got[0], want) {
		t.Errorf("warnings %q, want one ending %q", got, want)
	}
	b.do(func(xid int32) []byte { return create(xid, "/a", "", 0) }) // fires b's watch on /a
	b.watch("/d", true)
	if b.events != 1 {
		t.Errorf("b read %d notifications, want 1", b.events)
	}
	a.resume() // its watches went with its connection
	a.watch("/x", true)
	if code, err := a.do(func(xid int32) []byte { return req(xid, wire.OpAddWatch, jb{}.str("/y").i32(0)) }); err != nil || code != 0 {
		t.Fatalf("addWatch (2 watches) with 1 held: code %d, %v", code, err)
	}
	a.watch("/z", false)
	refusals(t, srv, 2, 0)
}

// lines collects log lines from the server's goroutines.
type lines struct {
	mu sync.Mutex
	l  []string
}

func (l *lines) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.l = append(l.l, fmt.Sprintf(format, args...))
}

func (l *lines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.l)
}

// TestServer_MaxWatches: with a server-wide cap of 4 watches, a request
// that would pass it closes its connection whichever session holds them,
// and the watches of a closed session make room again.
func TestServer_MaxWatches(t *testing.T) {
	checkLeaks(t)
	srv, addr := newFake(t, netserver.Config{
		Machine: machine.Config{TickMillis: 500}, MaxSessionWatches: -1, MaxWatches: 4,
	})
	a, b := newWatcher(t, addr), newWatcher(t, addr)
	for i := range 3 {
		a.watch(fmt.Sprintf("/a%d", i), true)
	}
	b.watch("/b0", true)
	b.watch("/b0", true) // held: adds nothing
	b.watch("/b1", false)
	refusals(t, srv, 0, 1)
	a.watch("/a0", true)
	if _, err := a.do(func(xid int32) []byte { return req(xid, wire.OpCloseSession, nil) }); err != nil {
		t.Fatalf("closeSession: %v", err)
	}
	b.resume()
	for i := range 4 {
		b.watch(fmt.Sprintf("/b%d", i), true)
	}
	b.watch("/b4", false)
	refusals(t, srv, 0, 2)
}

// TestServer_WatchCapSetWatches: a setWatches that would pass the cap is
// refused as a watch request is, counting each of its paths.
func TestServer_WatchCapSetWatches(t *testing.T) {
	checkLeaks(t)
	srv, addr := newFake(t, netserver.Config{
		Machine: machine.Config{TickMillis: 500}, MaxSessionWatches: 2, MaxWatches: -1,
	})
	a := newWatcher(t, addr)
	set := func(paths ...string) func(int32) []byte {
		return func(xid int32) []byte {
			j := jb{}.i64(0).i32(0).i32(int32(len(paths)))
			for _, p := range paths {
				j = j.str(p)
			}
			return req(xid, wire.OpSetWatches, j.i32(0))
		}
	}
	if _, err := a.do(set("/p", "/q")); err != nil {
		t.Fatalf("setWatches of 2 exist watches under a cap of 2: %v", err)
	}
	if _, err := a.do(set("/p", "/q", "/r")); err == nil {
		t.Fatalf("setWatches of a 3rd exist watch under a cap of 2 was answered")
	}
	refusals(t, srv, 1, 0)
}

// TestServer_WatchedPathsPruned: the paths a connection notes for the
// four-letter words do not outgrow the watches its session holds: after
// 3,000 watches on distinct paths have fired, a connection keeps few.
func TestServer_WatchedPathsPruned(t *testing.T) {
	checkLeaks(t)
	const paths = 3000
	srv, addr := newFake(t, netserver.Config{Machine: machine.Config{TickMillis: 500}})
	a, b := newWatcher(t, addr), newWatcher(t, addr)
	for i := range paths {
		a.watch(fmt.Sprintf("/n%d", i), true)
	}
	for i := range paths {
		b.do(func(xid int32) []byte { return create(xid, fmt.Sprintf("/n%d", i), "", 0) })
	}
	a.watch("/last", true)
	if n := netserver.WatchedPaths(srv); n > paths/2 {
		t.Errorf("after %d watches fired the connections keep %d watched paths, want at most %d", paths, n, paths/2)
	}
}
