package fakezk

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/zksim/zksim/internal/ctxcond"
	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/zkclient"
	"github.com/zksim/zksim/zkapi"
)

// Fault is what happens to one request, as decided by an Interceptor.
type Fault int

const (
	// Deliver the request and its reply normally.
	Deliver Fault = iota
	// LoseRequest drops the connection before the request reaches the
	// server: nothing is applied, the caller sees ErrConnectionLoss.
	LoseRequest
	// LoseReply applies the request and drops the connection before the
	// reply arrives (the lost create): the caller sees ErrConnectionLoss.
	LoseReply
)

// Request is one request a Conn sends, as an Interceptor sees it.
type Request struct {
	// Session is the id of the session sending it.
	Session int64
	// Op names the call: "create", "delete", "exists", "get", "set",
	// "children", "multi", "sync", "getacl", "setacl", "addauth" or
	// "addwatch".
	Op string
	// Path is the node it acts on: a multi's first op's, "" for addauth.
	Path string
	// Record is the request as the server reads it; its String is the
	// one line a trace prints ("create /lock/n- ephemeral-sequential").
	Record fmt.Stringer
}

// Interceptor decides the fate of each request a Conn sends. It runs with
// the server locked, before the request reaches the server, and sees its
// state as it is then. It must not call the Server or its Conns.
type Interceptor func(st State, req Request) Fault

// Server is a fake ZooKeeper ensemble behind a mutex, with in-process
// Conns for ordinary unit tests: many sessions on one fake server, faults
// by method call.
// Every Conn delivers watch events synchronously, before the reply to any
// later request, so tests need no waiting.
type Server struct {
	mu        sync.Mutex
	m         *machine.Machine
	conns     map[int64]*conn // by current session id
	intercept Interceptor
	changed   ctxcond.Var // broadcast after every change
}

// NewServer returns a fresh in-memory server. Unlike a bare Machine it
// reaps empty containers by default (see Config.ContainerCheckTicks).
func NewServer(cfg Config) (*Server, error) {
	m, err := machine.NewMachine(forServer(cfg))
	if err != nil {
		return nil, err
	}
	if cfg.EpochMillis == 0 {
		m.UseClock(hostClock(m))
	}
	return &Server{m: m, conns: map[int64]*conn{}}, nil
}

// MustServer is NewServer for tests with a literal config; it panics on a
// bad config.
func MustServer(cfg Config) *Server {
	s, err := NewServer(cfg)
	if err != nil {
		panic(err)
	}
	return s
}

// ConnOptions configures Connect.
type ConnOptions struct {
	// SessionTimeoutMs is the requested session timeout (default 10000);
	// the server clamps it to [2, 20] ticks.
	SessionTimeoutMs int64
	// Replica is the ensemble member to connect to: 0 the leader, 1..
	// followers.
	Replica int
}

// Connect opens a new session and returns its Conn.
func (s *Server) Connect(opts ConnOptions) (Conn, error) {
	if opts.SessionTimeoutMs < 0 {
		return nil, fmt.Errorf("fakezk: negative session timeout %d ms", opts.SessionTimeoutMs)
	}
	if opts.SessionTimeoutMs == 0 {
		opts.SessionTimeoutMs = 10000
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if opts.Replica < 0 || opts.Replica > s.m.Config().Followers {
		return nil, fmt.Errorf("fakezk: no replica %d (leader 0 and %d followers)", opts.Replica, s.m.Config().Followers)
	}
	c := &conn{srv: s, timeoutMs: opts.SessionTimeoutMs}
	c.model = zkclient.NewSession[*watch, *pwatch](s.m.Config(), opts.Replica)
	c.openSession()
	s.deliver()
	return c, nil
}

// Expire makes the server expire a session now, as if its client had been
// silent for the whole timeout. A connected client learns at once (the
// server closes its connection and the reconnect is refused); a
// disconnected one on Reconnect.
func (s *Server) Expire(session int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.m.Alive(session) {
		return fmt.Errorf("fakezk: expire %#x: %w", session, zkapi.ErrSessionExpired)
	}
	s.m.Expire(session)
	if c := s.conns[session]; c != nil && !c.disconnected {
		c.learnExpired()
	}
	s.deliver()
	return nil
}

// Disconnect cuts a session's connection: its calls fail with
// ErrConnectionLoss, the server stops hearing from it, and ticks past its
// timeout expire it. The session lives on until then.
func (s *Server) Disconnect(session int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.conns[session]
	if c == nil || c.disconnected {
		return fmt.Errorf("fakezk: disconnect %#x: no connected client has that session", session)
	}
	c.disconnected = true
	s.m.Detach(session)
	c.setState(zkapi.StateDisconnected)
	s.deliver()
	return nil
}

// Reconnect restores a disconnected session's client: it resumes its
// session (re-registering its watches) or learns that it expired.
func (s *Server) Reconnect(session int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.conns[session]
	if c == nil || !c.disconnected {
		return fmt.Errorf("fakezk: reconnect %#x: no disconnected client has that session", session)
	}
	c.disconnected = false
	c.reconnect()
	s.deliver()
	return nil
}

// Tick advances virtual time by n ticks.
func (s *Server) Tick(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.m.Tick()
	}
	s.deliver()
}

// Intercept installs f (nil removes it) to decide each request's fate.
func (s *Server) Intercept(f Interceptor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.intercept = f
}

// Inspect runs f with the server locked, to read its state. f must not
// keep st or call the Server.
func (s *Server) Inspect(f func(st State)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s.m)
	s.deliver()
}

// SetSequence sets the sequence counter of the node at path: its next
// sequential child gets n. Tests use it to reach 2^31-1 (see
// Config.Overflow). A missing node is ErrNoNode.
func (s *Server) SetSequence(path string, n int32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m.SetSequence(path, n)
}

// Close closes every Conn of the server.
func (s *Server) Close() error {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for _, c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	sort.Slice(conns, func(i, j int) bool { return conns[i].model.ID < conns[j].model.ID })
	for _, c := range conns {
		c.Close()
	}
	return nil
}

// WaitUntil blocks until cond, run with the server locked after every
// change, holds, or ctx ends. Tests use it instead of sleeping: "until the
// waiter has queued its node".
func (s *Server) WaitUntil(ctx context.Context, cond func(st State) bool) error {
	return s.changed.Wait(ctx, &s.mu, func() bool { return cond(s.m) })
}

// deliver hands queued notifications to their Conns, in session order, and
// wakes WaitUntil. Every change of the server ends with it.
func (s *Server) deliver() {
	defer s.changed.Broadcast()
	ids := make([]int64, 0, len(s.conns))
	for id := range s.conns {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		for _, n := range s.m.TakeNotifications(id) {
			s.conns[id].notify(n.Event)
		}
	}
}
