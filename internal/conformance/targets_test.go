package conformance_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/proto"

	"github.com/zksim/zksim/expire"
	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// fakeTarget is fakezk's in-process server.
type fakeTarget struct{ srv *fakezk.Server }

func newFake(t testing.TB, seed uint64) *fakeTarget {
	f := fakeServer(seed)
	t.Cleanup(func() { f.srv.Close() })
	return f
}

func fakeServer(seed uint64) *fakeTarget {
	return &fakeTarget{srv: fakezk.MustServer(fakezk.Config{TickMillis: 500, SuperDigest: superDigest})}
}

func (f *fakeTarget) Connect(context.Context) (zkapi.Conn, error) {
	return f.srv.Connect(fakezk.ConnOptions{SessionTimeoutMs: 4000})
}

func (f *fakeTarget) Expire(_ context.Context, c zkapi.Conn) error {
	return f.srv.Expire(c.Session().ID)
}

func (f *fakeTarget) Disconnect(_ context.Context, c zkapi.Conn) error {
	return f.srv.Disconnect(c.Session().ID)
}

func (f *fakeTarget) Reconnect(_ context.Context, c zkapi.Conn) error {
	return f.srv.Reconnect(c.Session().ID)
}

func (f *fakeTarget) Settle(context.Context, []zkapi.Conn) error { return nil }

// sessionTimeout is long: expiry here is always forced (KillSession), and a
// short timeout lets a loaded machine drop connections spuriously.
// go-zookeeper v1.0.4 races on lastZxid when it reconnects with watches set
// (sendSetWatches against the new recvLoop), which -race reports; fewer
// needless reconnects make that rarer.
const sessionTimeout = 20 * time.Second

// realTarget is a real ZooKeeper through go-zookeeper. Each session talks
// through its own proxy (to cut its link) and its credentials are captured
// (to expire it with a raw closeSession).
type realTarget struct {
	addr    string
	capture *expire.Capture
	mu      sync.Mutex
	proxies map[zkapi.Conn]*zktest.Proxy
}

func newReal(t testing.TB) *realTarget { return newWireTarget(t, zktest.Standalone(t)[0]) }

// serveTarget is fakezk behind its TCP front (internal/netserver), driven
// exactly as the real server is: through go-zookeeper, proxies and
// KillSession. Its Reconnect also waits for the client's setWatches to
// reach the server when the session had watches: go-zookeeper v1.0.4
// reads lastZxid for that request while its receive loop may write it for
// a reply (a data race -race reports), and this fast server's replies
// make that window easy to hit. This covers the reconnects of
// TestConformance_Serve, which runs under -race; the same race right
// after a first handshake it cannot cover (see
// differential_serve_test.go).
type serveTarget struct {
	*realTarget
	srv *netserver.Server

	mu      sync.Mutex
	resends map[int64]int  // setWatches requests seen, by session
	pending map[int64]bool // had watches when its link was cut
}

func newServe(t testing.TB, seed uint64) *serveTarget {
	srv, addr := zktest.ServeFake(t, netserver.Config{Machine: machine.Config{TickMillis: 500, SuperDigest: superDigest}})
	s := &serveTarget{realTarget: newWireTarget(t, addr), srv: srv,
		resends: map[int64]int{}, pending: map[int64]bool{}}
	srv.Intercept(func(_ *machine.Machine, session int64, req proto.Request) fakezk.Fault {
		if _, ok := req.(proto.SetWatches); ok {
			s.mu.Lock()
			s.resends[session]++
			s.mu.Unlock()
		}
		return fakezk.Deliver
	})
	return s
}

func (s *serveTarget) Disconnect(ctx context.Context, c zkapi.Conn) error {
	id := c.Session().ID
	var watches int
	s.srv.Inspect(func(m *machine.Machine) { watches = m.SessionWatchCount(id) })
	s.mu.Lock()
	s.pending[id] = watches > 0
	s.mu.Unlock()
	return s.realTarget.Disconnect(ctx, c)
}

func (s *serveTarget) Reconnect(ctx context.Context, c zkapi.Conn) error {
	id := c.Session().ID
	s.mu.Lock()
	had, before := s.pending[id], s.resends[id]
	delete(s.pending, id)
	s.mu.Unlock()
	if err := s.resume(ctx, c); err != nil {
		return err
	}
	if had && c.Session().ID == id {
		err := s.srv.WaitUntil(ctx, func(*machine.Machine) bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.resends[id] > before
		})
		if err != nil {
			return fmt.Errorf("waiting for session %#x's setWatches: %w", id, err)
		}
	}
	return s.realTarget.settleReconnect(ctx, c)
}

func newWireTarget(t testing.TB, addr string) *realTarget {
	r := &realTarget{
		addr: addr, capture: &expire.Capture{},
		proxies: map[zkapi.Conn]*zktest.Proxy{},
	}
	t.Cleanup(func() {
		for _, p := range r.proxies {
			p.Close()
		}
	})
	return r
}

func (r *realTarget) Connect(ctx context.Context) (zkapi.Conn, error) {
	p, err := zktest.NewProxy(r.addr)
	if err != nil {
		return nil, err
	}
	c, err := gozk.DialContext(ctx, []string{p.Addr()}, gozk.Config{
		SessionTimeout: sessionTimeout, Dialer: r.capture.Dial,
	})
	if err != nil {
		p.Close()
		return nil, err
	}
	r.mu.Lock()
	r.proxies[c] = p
	r.mu.Unlock()
	return c, nil
}

func (r *realTarget) proxy(c zkapi.Conn) *zktest.Proxy {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.proxies[c]
}

func (r *realTarget) Expire(ctx context.Context, c zkapi.Conn) error {
	old := c.Session()
	cred, ok := r.capture.Credentials(old.ID)
	if !ok {
		return fmt.Errorf("no credentials captured for session %#x", old.ID)
	}
	// Straight to the server: the session's own proxy may be stalled.
	if err := expire.Kill(ctx, r.addr, cred); err != nil {
		return err
	}
	if old.State != zkapi.StateConnected {
		return nil
	}
	return waitSession(ctx, c, func(s zkapi.Session) bool {
		return s.ID != old.ID && s.State == zkapi.StateConnected
	})
}

func (r *realTarget) Disconnect(ctx context.Context, c zkapi.Conn) error {
	p := r.proxy(c)
	p.Stall()
	p.Disconnect()
	return waitSession(ctx, c, func(s zkapi.Session) bool { return s.State == zkapi.StateDisconnected })
}

func (r *realTarget) Reconnect(ctx context.Context, c zkapi.Conn) error {
	if err := r.resume(ctx, c); err != nil {
		return err
	}
	return r.settleReconnect(ctx, c)
}

// resume restores c's link and waits until c is connected again.
func (r *realTarget) resume(ctx context.Context, c zkapi.Conn) error {
	r.proxy(c).Resume()
	return waitSession(ctx, c, func(s zkapi.Session) bool { return s.State == zkapi.StateConnected })
}

// settleReconnect: go-zookeeper re-sends the watches from a goroutine it
// starts just after reporting the session; a first round trip can overtake
// that setWatches, a second one, sent after the first reply, cannot.
func (r *realTarget) settleReconnect(ctx context.Context, c zkapi.Conn) error {
	for range 2 {
		if _, _, err := c.Exists(ctx, "/"); err != nil {
			return err
		}
	}
	return nil
}

func waitSession(ctx context.Context, c zkapi.Conn, ok func(zkapi.Session) bool) error {
	for s := c.Session(); !ok(s); {
		var err error
		if s, err = c.WaitSession(ctx, s.Seq); err != nil {
			return fmt.Errorf("waiting for session change (last %v): %w", s, err)
		}
	}
	return nil
}

// Settle: the server queued each notification on its session's socket
// before replying to the write that caused it, so one later round trip per
// session proves its notifications have arrived.
func (r *realTarget) Settle(ctx context.Context, conns []zkapi.Conn) error {
	for _, c := range conns {
		if _, _, err := c.Exists(ctx, "/"); err != nil {
			return fmt.Errorf("settle: %w", err)
		}
	}
	return nil
}

var rootSeq atomic.Int64

// uniqueRoot names a fresh root so the real server can run a file again.
func uniqueRoot(name string) string {
	return fmt.Sprintf("/zksim-conformance-%s-%020d-%06d", name, time.Now().UnixNano(), rootSeq.Add(1))
}
