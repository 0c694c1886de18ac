package lock_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/internal/locktest"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// BenchmarkHandoff measures lock handoff latency on real servers, for
// lock.Mutex and for go-zookeeper's own zk.Lock, in one run and over the
// same two sessions. Two clients ping-pong the lock: A holds and B waits
// (its node is queued); A releases; the time until B holds is one op. Then
// the roles swap. ns/op is that handoff time alone: the set-up of each
// round (B queueing) is excluded. Extra metrics:
//
//	ns-p50, ns-p99  handoff percentiles; ns-max the slowest handoff
//	req/handoff     requests both clients sent per round (wire count, pings excepted)
//	rt/acquire      requests of one uncontended acquire
//	rt/release      requests of one release
//
// For lock.Mutex the rt metrics come from a counting zkapi.Conn wrapper;
// for zk.Lock, which takes a *zk.Conn, from counting request frames on the
// client's TCP connection. Run with
//
//	ZKSIM_ZK_STANDALONE=... ZKSIM_ZK_ENSEMBLE=... go test -run - -bench Handoff ./lock
func BenchmarkHandoff(b *testing.B) {
	b.Run("ensemble", func(b *testing.B) { benchHandoff(b, zktest.Serving(b, zktest.Ensemble(b)).Addrs) })
	b.Run("standalone", func(b *testing.B) { benchHandoff(b, zktest.Standalone(b)) })
}

func benchHandoff(b *testing.B, addrs []string) {
	ctx := zktest.Context(b, 30*time.Minute)
	admin := zktest.Dial(b, ctx, addrs, gozk.Config{})
	root := zktest.Root(b, ctx, admin, "/zksim-lock-test-")
	var wire wireCounter
	var conns [2]*gozk.Conn
	for i := range conns {
		conns[i] = zktest.Dial(b, ctx, addrs, gozk.Config{Dialer: wire.Dial})
	}
	abort := func() {
		for _, c := range conns {
			c.Close()
		}
	}
	round := 0
	newDir := func(kind string) string {
		round++
		return fmt.Sprintf("%s/%s-%d", root, kind, round)
	}

	b.Run("zksim-Mutex", func(b *testing.B) {
		dir := newDir("zksim")
		var counted [2]*countingConn
		var players [2]player
		for i := range players {
			counted[i] = &countingConn{Conn: conns[i]}
			players[i] = mutexPlayer(ctx, ensMutex(b, counted[i], dir, fmt.Sprintf("p%d", i)))
		}
		h := pingPong(b, ctx, admin, dir, players, wire.n.Load, abort)
		h.report(b)
		acq, rel := uncontended(b, players[0], counted[0].total)
		b.ReportMetric(acq, "rt/acquire")
		b.ReportMetric(rel, "rt/release")
	})
	b.Run("gozk-Lock", func(b *testing.B) {
		dir := newDir("gozk")
		var players [2]player
		for i := range players {
			players[i] = gozkPlayer(conns[i].ZK(), dir)
		}
		h := pingPong(b, ctx, admin, dir, players, wire.n.Load, abort)
		h.report(b)
		acq, rel := uncontended(b, players[0], wire.n.Load)
		b.ReportMetric(acq, "rt/acquire")
		b.ReportMetric(rel, "rt/release")
	})
}

// player is one client's lock, as the benchmark drives it: lock and unlock
// are called alternately from one goroutine.
type player struct {
	lock, unlock func() error
}

func mutexPlayer(ctx context.Context, m *lock.Mutex) player {
	var lease recipe.Lease
	return player{
		lock: func() (err error) {
			lease, err = m.Acquire(ctx)
			return err
		},
		unlock: func() error { return lease.Release(ctx) },
	}
}

// gozkPlayer is go-zookeeper's recipe; Lock cannot be cancelled, so the
// benchmark closes the connections to free a stuck one.
func gozkPlayer(conn *zk.Conn, dir string) player {
	l := zk.NewLock(conn, dir, zk.WorldACL(zk.PermAll))
	return player{lock: l.Lock, unlock: l.Unlock}
}

// seat runs one player on its own goroutine, on the coordinator's orders.
type seat struct {
	p        player
	acquire  chan struct{}
	got      chan time.Time // when lock returned
	release  chan struct{}
	released chan error
	failed   chan error
}

func newSeat(p player) *seat {
	return &seat{p: p, acquire: make(chan struct{}), got: make(chan time.Time, 1),
		release: make(chan struct{}), released: make(chan error, 1), failed: make(chan error, 1)}
}

func (s *seat) run(ctx context.Context) {
	for {
		select {
		case <-s.acquire:
		case <-ctx.Done():
			return
		}
		if err := s.p.lock(); err != nil {
			s.failed <- err
			return
		}
		s.got <- time.Now()
		select {
		case <-s.release:
			s.released <- s.p.unlock()
		case <-ctx.Done():
			s.p.unlock()
			return
		}
	}
}

type handoffs struct {
	n     int
	times []time.Duration
	reqs  int64
}

func (h handoffs) report(b *testing.B) {
	var total time.Duration
	for _, d := range h.times {
		total += d
	}
	slices.Sort(h.times)
	b.ReportMetric(float64(total.Nanoseconds())/float64(h.n), "ns/op")
	b.ReportMetric(float64(h.times[len(h.times)/2].Nanoseconds()), "ns-p50")
	b.ReportMetric(float64(h.times[len(h.times)*99/100].Nanoseconds()), "ns-p99")
	b.ReportMetric(float64(h.times[len(h.times)-1].Nanoseconds()), "ns-max")
	b.ReportMetric(float64(h.reqs)/float64(h.n), "req/handoff")
}

// pingPong hands the lock at dir back and forth b.N times. Before each
// release it waits, watching dir through admin, until the waiter's node is
// queued. requests reads the wire count of both players' connections.
func pingPong(b *testing.B, ctx context.Context, admin zkapi.Conn, dir string, players [2]player, requests func() int64, abort func()) handoffs {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var seats [2]*seat
	for i := range seats {
		seats[i] = newSeat(players[i])
		wg.Go(func() { seats[i].run(ctx) })
	}
	h := handoffs{n: b.N}
	err := h.play(ctx, admin, dir, seats, requests)
	if err != nil {
		abort() // frees a zk.Lock that waits for ever
	}
	cancel()
	wg.Wait()
	if err != nil {
		b.Fatal(err)
	}
	return h
}

func (h *handoffs) play(ctx context.Context, admin zkapi.Conn, dir string, seats [2]*seat, requests func() int64) error {
	holder := 0
	if err := seats[0].take(ctx); err != nil {
		return err
	}
	start := requests()
	for i := 0; i < h.n; i++ {
		w := 1 - holder
		if err := send(ctx, seats[w].acquire); err != nil {
			return err
		}
		if err := locktest.WaitChildren(ctx, admin, dir, 2); err != nil {
			return err
		}
		t0 := time.Now()
		if err := send(ctx, seats[holder].release); err != nil {
			return err
		}
		at, err := seats[w].wait(ctx)
		if err != nil {
			return fmt.Errorf("handoff %d: %w", i, err)
		}
		h.times = append(h.times, at.Sub(t0))
		if err := seats[holder].done(ctx); err != nil {
			return fmt.Errorf("handoff %d: %w", i, err)
		}
		holder = w
	}
	h.reqs = requests() - start
	if err := send(ctx, seats[holder].release); err != nil {
		return err
	}
	return seats[holder].done(ctx)
}

func (s *seat) take(ctx context.Context) error {
	if err := send(ctx, s.acquire); err != nil {
		return err
	}
	_, err := s.wait(ctx)
	return err
}

func (s *seat) wait(ctx context.Context) (time.Time, error) {
	select {
	case at := <-s.got:
		return at, nil
	case err := <-s.failed:
		return time.Time{}, fmt.Errorf("lock: %w", err)
	case <-ctx.Done():
		return time.Time{}, fmt.Errorf("waiting for the lock: %w", ctx.Err())
	}
}

func (s *seat) done(ctx context.Context) error {
	select {
	case err := <-s.released:
		if err != nil {
			return fmt.Errorf("unlock: %w", err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for unlock: %w", ctx.Err())
	}
}

func send(ctx context.Context, ch chan<- struct{}) error {
	select {
	case ch <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// uncontended returns the requests per acquire and per release of p with
// no other contender, as counted by requests.
func uncontended(b *testing.B, p player, requests func() int64) (acquire, release float64) {
	const rounds = 10
	var acq, rel int64
	for range rounds {
		n := requests()
		if err := p.lock(); err != nil {
			b.Fatal(err)
		}
		acq += requests() - n
		n = requests()
		if err := p.unlock(); err != nil {
			b.Fatal(err)
		}
		rel += requests() - n
	}
	return float64(acq) / rounds, float64(rel) / rounds
}

// countingConn counts the requests made through it, by kind; each is one
// round trip to the server. Session, WaitSession and Close are local.
type countingConn struct {
	zkapi.Conn

	mu  sync.Mutex
	ops map[string]int64
}

func (c *countingConn) count(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ops == nil {
		c.ops = make(map[string]int64)
	}
	c.ops[op]++
}

// total returns the number of requests so far.
func (c *countingConn) total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int64
	for _, v := range c.ops {
		n += v
	}
	return n
}

// reset returns the counts as "op=n ..." sorted by op, and zeroes them.
func (c *countingConn) reset() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var parts []string
	for op, n := range c.ops {
		parts = append(parts, fmt.Sprintf("%s=%d", op, n))
	}
	slices.Sort(parts)
	clear(c.ops)
	return strings.Join(parts, " ")
}

func (c *countingConn) Create(ctx context.Context, p string, data []byte, mode zkapi.CreateMode) (string, error) {
	c.count("create")
	return c.Conn.Create(ctx, p, data, mode)
}

func (c *countingConn) Delete(ctx context.Context, p string, version int32) error {
	c.count("delete")
	return c.Conn.Delete(ctx, p, version)
}

func (c *countingConn) Exists(ctx context.Context, p string) (zkapi.Stat, bool, error) {
	c.count("exists")
	return c.Conn.Exists(ctx, p)
}

func (c *countingConn) ExistsW(ctx context.Context, p string) (zkapi.Stat, bool, zkapi.Watch, error) {
	c.count("existsw")
	return c.Conn.ExistsW(ctx, p)
}

func (c *countingConn) Get(ctx context.Context, p string) ([]byte, zkapi.Stat, error) {
	c.count("get")
	return c.Conn.Get(ctx, p)
}

func (c *countingConn) GetW(ctx context.Context, p string) ([]byte, zkapi.Stat, zkapi.Watch, error) {
	c.count("getw")
	return c.Conn.GetW(ctx, p)
}

func (c *countingConn) Set(ctx context.Context, p string, data []byte, version int32) (zkapi.Stat, error) {
	c.count("set")
	return c.Conn.Set(ctx, p, data, version)
}

func (c *countingConn) Children(ctx context.Context, p string) ([]string, zkapi.Stat, error) {
	c.count("children")
	return c.Conn.Children(ctx, p)
}

func (c *countingConn) ChildrenW(ctx context.Context, p string) ([]string, zkapi.Stat, zkapi.Watch, error) {
	c.count("childrenw")
	return c.Conn.ChildrenW(ctx, p)
}

func (c *countingConn) Multi(ctx context.Context, ops ...zkapi.Op) ([]zkapi.OpResult, error) {
	c.count("multi")
	return c.Conn.Multi(ctx, ops...)
}

func (c *countingConn) Sync(ctx context.Context, p string) error {
	c.count("sync")
	return c.Conn.Sync(ctx, p)
}

// wireCounter is a go-zookeeper Dialer whose connections count the request
// frames the client writes, pings excepted: one per round trip.
type wireCounter struct{ n atomic.Int64 }

func (w *wireCounter) Dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	conn, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	return &wireConn{Conn: conn, w: w}, nil
}

// opPing is ZooKeeper's OpCode.ping.
const opPing = 11

// wireConn parses what the client writes: frames of a big-endian int32
// length and a body. The first frame is the ConnectRequest; every later one
// starts with a RequestHeader (int32 xid, int32 type).
type wireConn struct {
	net.Conn
	w *wireCounter

	mu     sync.Mutex
	buf    []byte
	frames int
}

func (c *wireConn) Write(p []byte) (int, error) {
	c.observe(p)
	return c.Conn.Write(p)
}

func (c *wireConn) observe(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf = append(c.buf, p...)
	for len(c.buf) >= 4 {
		n := int(binary.BigEndian.Uint32(c.buf))
		if len(c.buf) < 4+n {
			return
		}
		body := c.buf[4 : 4+n]
		if c.frames > 0 && len(body) >= 8 && int32(binary.BigEndian.Uint32(body[4:])) != opPing {
			c.w.n.Add(1)
		}
		c.frames++
		c.buf = c.buf[4+n:]
	}
}
