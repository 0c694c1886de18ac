// Package netserver puts fakezk on the network: a TCP server speaking
// ZooKeeper 3.8's client protocol (package wire) in front of one
// machine.Machine, so that any unmodified client (go-zookeeper, kazoo, the
// Java client behind zkCli.sh) can be tested against the fake, with faults
// injected by method call: lose the reply to the next matching request
// (the lost create), lose the request, expire a session, cut a client's
// connection, make a client abandon its session while the server keeps
// it, delay its watch notifications.
//
// Time is real here: a ticker advances the Machine one tickTime every
// Config.TickMillis milliseconds, and a client silent for its session
// timeout (a paused process) has its session expired, as ZooKeeper's
// session tracker does. Replies and notifications leave each connection in
// the order the Machine produced them: a client sees a watch event before
// the reply to any later request.
//
// The server answers as ZooKeeper 3.8.0 does at the byte level, down to
// its refusals and quirks (testdata/rawcases.golden records the real
// server's answers to malformed and unusual input; TestRawDiff_RealVsFake
// compares the two live). What the Machine does not model it answers
// itself (whoAmI, checkWatches, removeWatches, getEphemerals,
// getAllChildrenNumber, multiRead, from what the Machine shows) or
// refuses as the real server would refuse it.
//
// Every listener serves one replica of the Machine: Serve for the leader,
// ServeReplica for a follower (Config.Followers), whose sessions can read
// stale data until the follower catches up on the next tick or sync.
// Each replica is a member of the ensemble that StopMember and
// StartMember stop and start as a killed and restarted server, with the
// leader re-elected and quorum lost and regained as a real ensemble does
// (members.go).
package netserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"sync"
	"time"

	"github.com/zksim/zksim/fakezk"
	"github.com/zksim/zksim/internal/ctxcond"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// Config configures a Server.
type Config struct {
	// Machine configures the fake ensemble. TickMillis is real time here:
	// sessions negotiate timeouts of 2 to 20 ticks and expire on the tick
	// after their client has been silent that long. EpochMillis 0 stamps
	// nodes' ctime and mtime by the host's clock, as a real server does;
	// another value stamps EpochMillis plus the time ticked, for tests
	// that want the same times at every run.
	Machine machine.Config
	// MaxClientCnxns limits concurrent connections from one IP address,
	// as ZooKeeper's maxClientCnxns: a connection beyond it is closed at
	// once. Default 60; negative means no limit.
	MaxClientCnxns int
	// FrameBudget bounds the bytes that all connections together hold
	// for request frames still arriving, so that many clients each
	// trickling a large frame cannot exhaust the host's memory. A frame
	// reserves its declared length when its header arrives and releases
	// it once read (or when its connection closes); a frame that does not
	// fit closes its connection, as an oversized frame does, and the
	// session lives on. Default DefaultFrameBudget, or Machine.MaxFrame
	// if that is larger; negative means no limit. Besides the budget each
	// connection keeps up to about 20 KiB of read buffers.
	FrameBudget int
	// MaxSessionWatches caps the watches one session holds, and
	// MaxWatches those all sessions hold together (watchlimit.go says
	// how they are counted). A request that would set a watch past a cap
	// closes its connection without a reply, as an oversized frame does,
	// and the session lives on with the watches it had. Defaults
	// DefaultMaxSessionWatches and DefaultMaxWatches; negative means no
	// limit.
	MaxSessionWatches int
	MaxWatches        int
	// FollowerLag keeps followers a tick behind, as the simulator's are:
	// a follower applies the leader's writes only on the next tick, so
	// its sessions read stale data for up to a tick. By default followers
	// catch up after every request, as a real ensemble's do within a few
	// milliseconds; clients' own tests that write on one server and read
	// on another expect that.
	FollowerLag bool
	// Reconfig enables reconfig (opcode 16), as ZooKeeper 3.8's
	// reconfigEnabled does (off by default: reconfig is answered
	// ReconfigDisabled). With it an ensemble (Followers > 0) starts with
	// a configuration in /zookeeper/config listing its members
	// (server.N=127.0.0.1:0:0:participant, N = member index + 1: the fake
	// has no quorum ports) and version=ZXID, and reconfig changes it as
	// 3.8.0 does (reconfig.go); a standalone server answers Unimplemented.
	// Only the configuration changes: members a reconfig removes keep
	// serving, and the leader never steps down.
	Reconfig bool
	// FourLetterWords lists the four-letter words the client port
	// answers, as ZooKeeper's 4lw.commands.whitelist: nil answers srvr
	// alone (3.8's default), "*" every word. Others are answered as
	// ZooKeeper's NopCommand answers them ("dump is not executed because
	// it is not in the whitelist."): dump, cons and wchc name sessions,
	// and crst, srst and stmk change state, for anyone who can connect.
	FourLetterWords []string
	// SeededPasswords makes session passwords a function of
	// Machine.Seed and the session id, so that runs repeat. By default
	// they are keyed by crypto/rand at New, so that knowing a session id
	// (srvr's neighbours, a log, a 4lw answer) is not enough to resume
	// another client's session.
	SeededPasswords bool
	// SASLUsers are the users SASL DIGEST-MD5 authenticates, name to
	// password, as a JAAS Server section's user_NAME="PASSWORD" options
	// (ParseJAAS reads such a file), with SASLAuthenticationProvider
	// registered: a client that authenticates gains the identity
	// sasl:NAME, and sasl ACL entries are valid (sasl.go). Nil, as on a
	// server without a JAAS Server section, every SASL token is answered
	// with an empty one and sasl ACL entries are InvalidACL.
	SASLUsers map[string]string
	// Logf, if set, receives one line per connection event and fault.
	Logf func(format string, args ...any)
	// Warnf, if set, receives the lines an operator must see even when
	// Logf is quiet: each connection closed at a watch cap, naming the
	// session, the cap and how to raise it. Unset, they go to Logf.
	Warnf func(format string, args ...any)
}

// sessionlessTimeout is how long a connection may stay open without
// completing its handshake (zookeeper.nio.sessionlessCnxnTimeout); the
// real server's expiry buckets stretch it to 10-20 s.
const sessionlessTimeout = 10 * time.Second

// Server is a machine.Machine served over TCP. Its methods are safe for
// concurrent use.
type Server struct {
	cfg  Config
	tick time.Duration
	// sessionless is sessionlessTimeout, shortened by tests.
	sessionless time.Duration

	mu        sync.Mutex
	m         *machine.Machine
	conns     map[*conn]struct{}
	bySession map[int64]*conn
	perIP     map[string]int
	rules     []rule // armed lose-reply and lose-request, oldest first
	intercept Interceptor
	delays    map[int64]watchDelay // watch delivery delay by session, 0: all
	lastFault int                  // the last armed fault's id
	abandoned map[int64]bool       // live sessions whose resumption is refused
	listeners map[net.Listener]struct{}
	members   []member      // replica 0 and the followers (members.go)
	leader    int           // the leader member's index, -1 without quorum
	quorum    *quorumConfig // with Config.Reconfig on an ensemble: its configuration
	changed   ctxcond.Var   // broadcast by deliver
	ended     int64         // the Machine's EndedSessions at the last deliver
	closed    bool

	budget      frameBudget // has its own lock
	watchLimits watchLimits // under mu
	pwKey       []byte      // keys session passwords; nil with SeededPasswords

	done chan struct{}
	wg   sync.WaitGroup
}

var (
	// ErrClosed is returned by Serve once the Server is closed.
	ErrClosed = errors.New("netserver: closed")
	// errConfig is returned by New for a Config it cannot serve.
	errConfig = errors.New("netserver: invalid config")
)

// frameBudgetFor is the limit of Config.FrameBudget, checked: 0 for no
// limit.
func frameBudgetFor(budget, maxFrame int) (int, error) {
	switch {
	case budget < 0:
		return 0, nil
	case budget == 0:
		return max(DefaultFrameBudget, maxFrame), nil
	case budget < maxFrame:
		return 0, fmt.Errorf("%w: FrameBudget %d is below MaxFrame %d: a largest frame could never be read", errConfig, budget, maxFrame)
	}
	return budget, nil
}

// New returns a Server over a fresh Machine and starts its clock.
func New(cfg Config) (*Server, error) {
	if cfg.MaxClientCnxns == 0 {
		cfg.MaxClientCnxns = 60
	}
	m, err := machine.NewMachine(cfg.Machine)
	if err != nil {
		return nil, err
	}
	if cfg.Machine.EpochMillis == 0 {
		// A real server stamps ctime and mtime by its clock.
		m.UseClock(func() int64 { return time.Now().UnixMilli() })
	}
	budget, err := frameBudgetFor(cfg.FrameBudget, m.Config().MaxFrame)
	if err != nil {
		return nil, err
	}
	if err := CheckFourLetterWords(cfg.FourLetterWords); err != nil {
		return nil, err
	}
	key, err := passwordKey(cfg.SeededPasswords)
	if err != nil {
		return nil, err
	}
	if cfg.SASLUsers != nil {
		m.RegisterSASL()
	}
	qc := initialQuorum(cfg, m.Config().Followers)
	if qc != nil {
		m.InitConfig(qc.data)
	}
	s := &Server{
		cfg: cfg, tick: time.Duration(m.Config().TickMillis) * time.Millisecond, sessionless: sessionlessTimeout,
		m: m, conns: map[*conn]struct{}{}, bySession: map[int64]*conn{},
		perIP:  map[string]int{},
		delays: map[int64]watchDelay{}, abandoned: map[int64]bool{}, listeners: map[net.Listener]struct{}{},
		budget: frameBudget{limit: budget}, watchLimits: newWatchLimits(cfg),
		members: make([]member, 1+m.Config().Followers),
		quorum:  qc,
		pwKey:   key,
		done:    make(chan struct{}),
	}
	s.wg.Add(1)
	go s.clock()
	return s, nil
}

// warnf logs a line through Warnf, or Logf without it.
func (s *Server) warnf(format string, args ...any) {
	if s.cfg.Warnf != nil {
		s.cfg.Warnf(format, args...)
		return
	}
	s.logf(format, args...)
}

func (s *Server) logf(format string, args ...any) {
	if s.cfg.Logf != nil {
		s.cfg.Logf(format, args...)
	}
}

// Listen binds addr (for example "127.0.0.1:0") and serves the leader on
// it in the background; it returns the bound address.
func (s *Server) Listen(addr string) (net.Addr, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.ServeReplica(l, 0)
	}()
	return l.Addr(), nil
}

// Serve accepts connections to the leader on l until Close.
func (s *Server) Serve(l net.Listener) error { return s.ServeReplica(l, 0) }

// ServeReplica accepts connections on l for replica i, member i of the
// ensemble: 0 the leader, 1..Followers a follower. It returns ErrClosed
// after Close, ErrMemberState once StopMember stops the member (StartMember
// listens again on l's address, in the background), and the error of an
// Accept on a listener closed by someone else; any other failed Accept
// (out of file descriptors, say) is retried after a delay of 5 ms that
// doubles up to 1 s, logged once per streak. Each member is served on one
// listener at a time.
func (s *Server) ServeReplica(l net.Listener, i int) error {
	if i < 0 || i > s.m.Config().Followers {
		l.Close()
		return fmt.Errorf("netserver: no replica %d (leader 0 and %d followers)", i, s.m.Config().Followers)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		l.Close()
		return ErrClosed
	}
	if mb := &s.members[i]; mb.l != nil || mb.stopped {
		s.mu.Unlock()
		l.Close()
		return fmt.Errorf("netserver: serve member %d: %w: already served or stopped", i, ErrMemberState)
	}
	s.members[i].addr, s.members[i].l = l.Addr(), l
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	return s.acceptLoop(l, i)
}

// acceptLoop accepts connections on l for member i until l closes.
func (s *Server) acceptLoop(l net.Listener, i int) error {
	var b acceptBackoff
	for {
		nc, err := l.Accept()
		if err == nil {
			b.succeeded(s)
			s.accept(nc, i)
			continue
		}
		if err = s.acceptFailed(err, &b); err != nil {
			s.mu.Lock()
			delete(s.listeners, l)
			if s.members[i].l != l && !errors.Is(err, ErrClosed) {
				err = fmt.Errorf("netserver: member %d: %w: stopped", i, ErrMemberState)
			}
			s.mu.Unlock()
			return err
		}
	}
}

// accept admits a connection under the per-IP limit and starts its
// goroutines.
func (s *Server) accept(nc net.Conn, replica int) {
	ip := remoteIP(nc)
	s.mu.Lock()
	if s.members[replica].stopped {
		// Accepted just before StopMember closed the listener.
		s.mu.Unlock()
		nc.Close()
		return
	}
	if s.closed || (s.cfg.MaxClientCnxns > 0 && s.perIP[ip] >= s.cfg.MaxClientCnxns) {
		s.mu.Unlock()
		s.logf("too many connections from %s - max is %d", ip, s.cfg.MaxClientCnxns)
		// NIOServerCnxnFactory's fastCloseSock: no bytes, SO_LINGER 0.
		if tc, ok := nc.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		nc.Close()
		return
	}
	c := newConn(s, nc, replica, ip)
	s.conns[c] = struct{}{}
	s.perIP[ip]++
	s.mu.Unlock()
	s.wg.Add(2)
	go c.readLoop()
	go c.writeLoop()
}

func remoteIP(nc net.Conn) string {
	if a, ok := nc.RemoteAddr().(*net.TCPAddr); ok {
		return a.IP.String()
	}
	return nc.RemoteAddr().String()
}

// Close stops the listeners, closes every connection and the clock, and
// waits for every goroutine of the Server to end. Sessions die with it.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.done)
	for l := range s.listeners {
		l.Close()
	}
	for c := range s.conns {
		c.nc.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}

// clock ticks the Machine in real time and expires the sessions whose
// clients have been silent for their whole timeout. Without quorum it
// does neither: virtual time pauses, as no session tracker runs.
func (s *Server) clock() {
	defer s.wg.Done()
	t := time.NewTicker(s.tick)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case now := <-t.C:
			s.mu.Lock()
			if !s.serving() {
				s.mu.Unlock()
				continue
			}
			s.expireSilent(now)
			s.m.Tick()
			s.forgetAbandoned()
			s.deliver()
			s.mu.Unlock()
		}
	}
}

// expireSilent expires the sessions of connections that have sent nothing
// for the session timeout: the client is paused or gone without a FIN.
func (s *Server) expireSilent(now time.Time) {
	for _, id := range sortedSessions(s.bySession) {
		c := s.bySession[id]
		if now.Sub(c.lastHeard) > time.Duration(s.m.SessionTimeout(id))*time.Millisecond {
			s.logf("session %#x expired: client silent for %v", id, now.Sub(c.lastHeard).Round(time.Millisecond))
			s.m.Expire(id) // deliver, after the tick, closes the connection
		}
	}
}

// deliver brings followers up to date (unless Config.FollowerLag), then
// hands the Machine's queued notifications to their connections, in
// session order, and wakes WaitUntil.
//
// A session the Machine no longer has (ended by an interceptor or through
// Inspect, behind the server's back) loses its connection here, as a
// session the real server expires does.
//
// Only the sessions with news are visited: those the Machine lists as
// notified, and every bound session once some session has ended since the
// last visit. Visiting all of them on every request made each request
// cost a sort of every session (issue 11: 1,000 sessions ran 5x slower).
func (s *Server) deliver() {
	if !s.cfg.FollowerLag {
		for i := 1; i <= s.m.Config().Followers; i++ {
			s.m.CatchUp(i, s.m.Zxid())
		}
	}
	if ended := s.m.EndedSessions(); ended != s.ended {
		s.ended = ended
		for _, id := range sortedSessions(s.bySession) {
			if !s.m.Alive(id) {
				c := s.bySession[id]
				s.logf("session %#x ended: closing its connection", id)
				s.unbind(c)
				c.closeAfterFlush()
			}
		}
	}
	for _, id := range s.m.TakeNotified() {
		c := s.bySession[id]
		if c == nil {
			continue // detached or ended: the Machine keeps or drops its queue
		}
		for _, n := range s.m.TakeNotifications(id) {
			c.sendNotification(n, s.delayFor(id))
		}
	}
	s.changed.Broadcast()
}

func (s *Server) delayFor(id int64) time.Duration {
	if wd, ok := s.delays[id]; ok {
		return wd.d
	}
	return s.delays[0].d
}

func sortedSessions(m map[int64]*conn) []int64 {
	ids := make([]int64, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// unbind detaches c from its session: the session lives on, unheard,
// until a client resumes it or it times out.
func (s *Server) unbind(c *conn) {
	if c.session != 0 && s.bySession[c.session] == c {
		delete(s.bySession, c.session)
		s.m.Detach(c.session)
	}
	c.dead = true
}

// forget removes a finished connection.
func (s *Server) forget(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unbind(c)
	c.closeAfterFlush()
	if _, ok := s.conns[c]; ok {
		delete(s.conns, c)
		if s.perIP[c.ip]--; s.perIP[c.ip] == 0 {
			delete(s.perIP, c.ip)
		}
	}
	s.deliver()
}

// SessionInfo describes a live session.
type SessionInfo struct {
	ID        int64
	TimeoutMs int64
	// Remote is the client's address while it is connected, "" if not.
	Remote string
}

// Sessions lists the live sessions in id order.
func (s *Server) Sessions() []SessionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []SessionInfo
	for _, id := range s.m.SessionIDs() {
		info := SessionInfo{ID: id, TimeoutMs: s.m.SessionTimeout(id)}
		if c := s.bySession[id]; c != nil {
			info.Remote = c.nc.RemoteAddr().String()
		}
		out = append(out, info)
	}
	return out
}

// Expire makes the server expire a session now, as its session tracker
// does when the client has been silent for the timeout: the ephemerals go
// in one transaction, the connection closes, and the client's reconnect is
// refused.
func (s *Server) Expire(id int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkLive(id); err != nil {
		return fmt.Errorf("netserver: expire: %w", err)
	}
	s.expireByRequest(id)
	s.deliver()
	return nil
}

// Disconnect closes a session's connection: the client sees connection
// loss and reconnects to the same session, which lives on meanwhile.
func (s *Server) Disconnect(id int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkConnected(id); err != nil {
		return fmt.Errorf("netserver: disconnect: %w", err)
	}
	s.disconnect(id)
	s.deliver()
	return nil
}

// Abandon makes a session's client give it up, as a client does whose own
// session timeout ran out during a disconnection (Curator's injected
// expiry), or an application that closed its handle without the
// closeSession reaching the server and opened a new one: the connection
// closes, and the client's attempt to resume the session is answered as
// if it had expired, so that it opens a new one. The server itself keeps
// the old session, and its ephemeral nodes, until the session expires by
// its timeout, unheard. A client that looks for a node its lost create
// made may find the old session's (CURATOR-498).
func (s *Server) Abandon(id int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkLive(id); err != nil {
		return fmt.Errorf("netserver: abandon: %w", err)
	}
	s.abandon(id)
	s.deliver()
	return nil
}

// The session faults, with s.mu held, shared by the methods above and the
// fault spec's expire, disconnect and abandon items.

func (s *Server) checkLive(id int64) error {
	if !s.m.Alive(id) {
		return fmt.Errorf("no live session %#x: %w", id, zkapi.ErrSessionExpired)
	}
	return nil
}

func (s *Server) checkConnected(id int64) error {
	if s.bySession[id] == nil {
		return fmt.Errorf("no connected client has session %#x", id)
	}
	return nil
}

func (s *Server) expireByRequest(id int64) {
	s.logf("session %#x expired by request", id)
	s.m.Expire(id) // the deliver that follows closes the connection
}

func (s *Server) disconnect(id int64) {
	s.logf("session %#x disconnected by request", id)
	c := s.bySession[id]
	s.unbind(c)
	c.closeAfterFlush()
}

func (s *Server) abandon(id int64) {
	s.logf("session %#x abandoned by request: it lives until it times out; its client must start a new one", id)
	s.abandoned[id] = true
	if c := s.bySession[id]; c != nil {
		s.unbind(c)
		c.closeAfterFlush()
	}
}

// forgetAbandoned drops the marks of abandoned sessions that have ended.
func (s *Server) forgetAbandoned() {
	for id := range s.abandoned {
		if !s.m.Alive(id) {
			delete(s.abandoned, id)
		}
	}
}

// DelayWatches holds each watch notification for session id (0: every
// session without its own setting) for d before sending it. A connection
// is a queue, so the replies queued behind a held notification wait too:
// a client never sees a reply before an earlier event, but clients see
// their events at different times. d = 0 removes the delay. A delay in
// force is an armed fault: Faults lists it, ClearFault lifts it.
func (s *Server) DelayWatches(id int64, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("netserver: negative watch delay %v", d)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setDelay(id, d)
	return nil
}

// setDelay sets session id's watch delay, with s.mu held: a new setting,
// with a new fault id, replaces the old.
func (s *Server) setDelay(id int64, d time.Duration) {
	if d == 0 {
		delete(s.delays, id)
		return
	}
	s.lastFault++
	s.delays[id] = watchDelay{s.lastFault, d}
}

// Interceptor decides the fate of each request a client sends, as
// fakezk's does, seeing the Machine (which it may change first: expire a
// session, apply another session's request) and the request record.
type Interceptor func(m *machine.Machine, session int64, req proto.Request) fakezk.Fault

// Intercept installs f (nil removes it) to decide the fate of each request,
// after the rules LoseReply and LoseRequest added. It runs with the server
// locked and must not call the Server.
func (s *Server) Intercept(f Interceptor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.intercept = f
}

// Inspect runs f with the Machine locked; events f causes are delivered
// after it.
func (s *Server) Inspect(f func(m *machine.Machine)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s.m)
	s.deliver()
}

// WaitUntil blocks until cond, run with the Machine locked after every
// change, holds, or ctx ends.
func (s *Server) WaitUntil(ctx context.Context, cond func(m *machine.Machine) bool) error {
	return s.changed.Wait(ctx, &s.mu, func() bool { return cond(s.m) })
}
