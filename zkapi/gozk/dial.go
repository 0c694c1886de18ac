package gozk

import (
	"context"
	"fmt"
	"math"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// Config configures Dial. SessionTimeout is required.
type Config struct {
	// SessionTimeout is the session timeout asked of the server, which
	// clamps it to [2, 20] x its tickTime. Whole milliseconds, at least 1ms.
	SessionTimeout time.Duration
	// ConnectTimeout bounds how long Dial waits for the first session;
	// zero means SessionTimeout. DialContext also honours its ctx.
	ConnectTimeout time.Duration
	// Logger receives go-zookeeper's log lines; nil discards them
	// (go-zookeeper's own default writes to stderr).
	Logger zk.Logger
	// Dialer opens the TCP connection to one server; nil means
	// net.DialTimeout. Tests wrap it to capture session credentials or to
	// cut the connection.
	Dialer zk.Dialer

	_ struct{}
}

// validate checks cfg and servers; every failure wraps ErrConfig.
func (cfg *Config) validate(servers []string) error {
	const maxTimeout = time.Duration(math.MaxInt32) * time.Millisecond
	switch {
	case len(servers) == 0:
		return fmt.Errorf("%w: no servers", ErrConfig)
	case cfg.SessionTimeout < time.Millisecond || cfg.SessionTimeout > maxTimeout:
		return fmt.Errorf("%w: SessionTimeout must be between 1ms and %v, got %v", ErrConfig, maxTimeout, cfg.SessionTimeout)
	case cfg.ConnectTimeout < 0:
		return fmt.Errorf("%w: ConnectTimeout must not be negative, got %v", ErrConfig, cfg.ConnectTimeout)
	}
	for i, s := range servers {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("%w: server %d is empty", ErrConfig, i)
		}
	}
	return nil
}

func (cfg *Config) connectTimeout() time.Duration {
	if cfg.ConnectTimeout == 0 {
		return cfg.SessionTimeout
	}
	return cfg.ConnectTimeout
}

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}

// Conn is a zkapi.Conn backed by a *zk.Conn. Its methods are safe for
// concurrent use.
type Conn struct {
	zc      *zk.Conn
	shim    *shim // Dial's: sends what go-zookeeper cannot (persistent.go)
	sess    *tracker
	closing atomic.Bool
	once    sync.Once
	done    chan struct{} // closed when go-zookeeper has closed its event channel
}

var (
	_ zkapi.Conn       = (*Conn)(nil)
	_ zkapi.TTLCreator = (*Conn)(nil)
)

// DialContext connects to servers ("host:port"; go-zookeeper adds port 2181
// when there is none) and returns once the server has granted a session.
// If none is granted within cfg.ConnectTimeout or before ctx ends, it closes
// what it started and returns an error wrapping zkapi.ErrConnectionLoss and
// the context's error.
func DialContext(ctx context.Context, servers []string, cfg Config) (*Conn, error) {
	if err := cfg.validate(servers); err != nil {
		return nil, err
	}
	c := &Conn{sess: newTracker(zkapi.Session{State: zkapi.StateConnecting}), done: make(chan struct{}), shim: newShim()}
	zc, events, err := connect(servers, cfg, c)
	if err != nil {
		return nil, fmt.Errorf("gozk: dial %s: %w", strings.Join(servers, ","), err)
	}
	go c.drain(events, false)
	if err := c.awaitSession(ctx, cfg.connectTimeout()); err != nil {
		state := zc.State()
		c.Close()
		return nil, fmt.Errorf("gozk: dial %s: no session (go-zookeeper state %v): %w: %w",
			strings.Join(servers, ","), state, zkapi.ErrConnectionLoss, err)
	}
	return c, nil
}

// connect starts go-zookeeper with an event callback that feeds c's tracker
// synchronously, so that no session transition is lost. go-zookeeper may call
// it before Connect returns; the callback waits until c.zc is set.
func connect(servers []string, cfg Config, c *Conn) (*zk.Conn, <-chan zk.Event, error) {
	ready := make(chan struct{})
	callback := func(ev zk.Event) {
		if ev.Type != zk.EventSession {
			return
		}
		<-ready
		c.sess.observe(ev.State, c.zc.SessionID())
	}
	var logger zk.Logger = quietLogger{}
	if cfg.Logger != nil {
		logger = cfg.Logger
	}
	dialer := cfg.Dialer
	if dialer == nil {
		dialer = net.DialTimeout
	}
	if c.shim != nil {
		dialer = c.shim.dialer(dialer)
	}
	zc, events, err := zk.Connect(servers, cfg.SessionTimeout,
		zk.WithDialer(dialer), zk.WithLogger(logger), zk.WithEventCallback(callback))
	c.zc = zc
	close(ready)
	return zc, events, err
}

func (c *Conn) awaitSession(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	s := c.sess.session()
	for s.State != zkapi.StateConnected {
		var err error
		if s, err = c.sess.wait(ctx, s.Seq); err != nil {
			return err
		}
	}
	return nil
}

// FromConn adopts zc and events, the values zk.Connect returned; the Conn owns
// both from now on (Close closes zc; nothing else may read events). It does
// not wait for a session. Session changes are read from events, which
// go-zookeeper lets overflow: see the package doc. FromConn panics if zc or
// events is nil.
func FromConn(zc *zk.Conn, events <-chan zk.Event) *Conn {
	if zc == nil || events == nil {
		panic("gozk: FromConn needs the *zk.Conn and the event channel zk.Connect returned")
	}
	first := zkapi.Session{ID: zc.SessionID(), State: zkapi.StateConnecting}
	switch {
	case zc.State() == zk.StateHasSession && first.ID != 0:
		first.State = zkapi.StateConnected
	case first.ID != 0:
		first.State = zkapi.StateDisconnected
	}
	c := &Conn{zc: zc, sess: newTracker(first), done: make(chan struct{})}
	go c.drain(events, true)
	return c
}

// drain is the Conn's one goroutine: it reads go-zookeeper's event channel
// until go-zookeeper closes it, which it does once its own goroutines have
// ended; the Conn is closed from then on, however zc came to be closed. With
// observe set (FromConn) it also feeds session events to the tracker.
func (c *Conn) drain(events <-chan zk.Event, observe bool) {
	defer func() {
		c.closing.Store(true)
		c.sess.close()
		c.closeShim()
		close(c.done)
	}()
	for ev := range events {
		if observe && ev.Type == zk.EventSession {
			c.sess.observe(ev.State, c.zc.SessionID())
		}
	}
}

// Close ends the session, so the server deletes its ephemeral nodes, and
// waits until go-zookeeper has stopped: pending watches have then ended with
// EventNotWatching and ErrClosed, and the session snapshot is Closed. Later
// calls, including Close, return zkapi.ErrClosed. If the server does not
// answer, go-zookeeper gives up after its own timeouts (seconds).
func (c *Conn) Close() error {
	closed := true
	c.once.Do(func() {
		closed = false
		c.closing.Store(true)
		c.sess.freeze()
		c.zc.Close()
		<-c.done
		c.closeShim()
	})
	if closed {
		return proto.Wrap("close", "", zkapi.ErrClosed)
	}
	return nil
}

// Session implements zkapi.Conn.
func (c *Conn) Session() zkapi.Session { return c.sess.session() }

// WaitSession implements zkapi.Conn; see the package doc for which snapshot
// it returns when several changes happened since seq.
func (c *Conn) WaitSession(ctx context.Context, seq uint64) (zkapi.Session, error) {
	return c.sess.wait(ctx, seq)
}

// ZK returns the underlying go-zookeeper connection, for what zkapi does not
// cover (reconfig, the server it is connected to). Closing it closes the
// Conn once go-zookeeper has stopped; requests cut off before then may
// report ErrConnectionLoss.
func (c *Conn) ZK() *zk.Conn { return c.zc }
