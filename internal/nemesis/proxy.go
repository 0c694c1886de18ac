package nemesis

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/expire"
	"github.com/zksim/zksim/internal/wire"
)

// Errors returned by this package, compared with errors.Is; returned
// errors wrap them with the name or address concerned.
var (
	// ErrUnknownServer: a client dialled, through a Proxy, an address that
	// is not one of the servers the Proxy was made for.
	ErrUnknownServer = errors.New("nemesis: not a server of this proxy")
	// ErrRefused: a -faults kind a real run cannot inject, or one that
	// needs members the run does not control.
	ErrRefused = errors.New("nemesis: fault refused on real servers")
	// ErrSpec: a -faults spec that does not parse.
	ErrSpec = errors.New("nemesis: bad -faults spec")
	// ErrNoSession: the client has no session yet to expire.
	ErrNoSession = errors.New("nemesis: no session seen")
)

// maxFrame bounds a frame the proxy forwards: well above jute.maxbuffer
// (1 MiB by default), so it never refuses what a server would take.
const maxFrame = 64 << 20

// arm is a fault waiting for the next request through a Proxy.
type arm int

const (
	armLoseRequest arm = iota + 1 // drop it and cut: nothing applied
	armLoseReply                  // forward it, cut at its reply: applied
	armCutAfter                   // forward it and its reply, then cut
)

// Effect is a fault as it took effect on a Proxy's traffic.
type Effect struct {
	Kind    string  // the fault's -faults name
	Request int64   // the request's number through the proxy, from 1; 0: none
	Op      wire.Op // that request's type
	Server  string  // the server the connection went to
}

// ProxyConfig configures NewProxy.
type ProxyConfig struct {
	// Servers are the real addresses the client may dial; the proxy
	// listens once for each.
	Servers []string
	// OnRequest is called before each of the client's requests (not its
	// pings, session re-registration or close) is forwarded, with the
	// request's number from 1 and its type. A fault armed from it (a
	// LoseRequest, a Stall...) applies to that request. It must not block.
	OnRequest func(n int64, op wire.Op)
	// Observe is told each fault as it takes effect. It must not block.
	Observe func(Effect)
}

// Proxy is one client's way to the servers: a loopback listener for each
// server address, forwarding whole frames, so that a fault can be aimed
// at one request and the client's reconnection to any server passes
// through it too. Its methods are safe for concurrent use; its goroutines
// all end by the time Close returns.
type Proxy struct {
	cfg     ProxyConfig
	lns     []net.Listener
	targets map[string]string // listener address -> server
	addrs   map[string]string // server -> listener address
	done    chan struct{}
	wg      sync.WaitGroup

	mu       sync.Mutex
	links    map[*link]struct{}
	requests int64
	armed    []arm
	held     chan struct{} // non-nil while stalled; closed when it ends
	dead     bool          // crashed: every connection is cut at once
	gen      int           // the current stall's timer
	timer    *time.Timer
	session  expire.Credentials
	closed   bool
}

// NewProxy listens on a free loopback port for each of cfg.Servers.
func NewProxy(cfg ProxyConfig) (*Proxy, error) {
	p := &Proxy{cfg: cfg, targets: map[string]string{}, addrs: map[string]string{},
		done: make(chan struct{}), links: map[*link]struct{}{}}
	for _, s := range cfg.Servers {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			p.Close()
			return nil, fmt.Errorf("nemesis: proxy for %s: %w", s, err)
		}
		p.lns = append(p.lns, ln)
		p.targets[ln.Addr().String()], p.addrs[s] = s, ln.Addr().String()
	}
	for i, ln := range p.lns {
		p.wg.Add(1)
		go p.accept(ln, cfg.Servers[i])
	}
	return p, nil
}

// Addr is where a client reaches server through the proxy.
func (p *Proxy) Addr(server string) (string, error) {
	a, ok := p.addrs[server]
	if !ok {
		return "", fmt.Errorf("%w: %s", ErrUnknownServer, server)
	}
	return a, nil
}

// Server is the server that the proxy's listener at addr forwards to.
func (p *Proxy) Server(addr string) (string, bool) {
	s, ok := p.targets[addr]
	return s, ok
}

// Dialer returns a go-zookeeper dialer that dials, through inner (nil:
// net.DialTimeout), the proxy's listener for the server asked: so an
// expire.Capture's Dial can watch the same connection.
func (p *Proxy) Dialer(inner zk.Dialer) zk.Dialer {
	if inner == nil {
		inner = net.DialTimeout
	}
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		a, err := p.Addr(address)
		if err != nil {
			return nil, err
		}
		return inner(network, a, timeout)
	}
}

// Requests is how many requests the client has sent through the proxy.
func (p *Proxy) Requests() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.requests
}

// Session returns the credentials of the latest session a server granted
// through the proxy, with the server's own address: what expire.Kill
// needs to end it without passing through the proxy.
func (p *Proxy) Session() (expire.Credentials, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.session, p.session.SessionID != 0
}

// LoseRequest arms the next request to be lost before the server: the
// proxy drops it and cuts its connection, so nothing is applied and the
// client sees connection loss.
func (p *Proxy) LoseRequest() { p.arm(armLoseRequest) }

// LoseReply arms the next request to lose its reply: the proxy forwards
// it and cuts the connection when the reply comes back, before the
// client gets it: applied, yet the client sees connection loss (the lost
// create).
func (p *Proxy) LoseReply() { p.arm(armLoseReply) }

// DisconnectAfterReply arms a cut just after the next request's reply
// reaches the client: a disconnect with nothing of the client's in
// flight, after which it reconnects with its session.
func (p *Proxy) DisconnectAfterReply() { p.arm(armCutAfter) }

func (p *Proxy) arm(a arm) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.armed = append(p.armed, a)
}

// Disconnect cuts every current connection now, both sides; the client
// reconnects through the proxy. It returns how many it cut.
func (p *Proxy) Disconnect() int {
	p.mu.Lock()
	links := make([]*link, 0, len(p.links))
	for l := range p.links {
		links = append(links, l)
	}
	p.mu.Unlock()
	for _, l := range links {
		l.close()
	}
	return len(links)
}

// Crash cuts the client off for good: its connections are cut, and every
// new one is closed as soon as it is accepted, so the client fails fast
// while its session lingers on the server until it expires.
func (p *Proxy) Crash() {
	p.mu.Lock()
	p.dead = true
	p.mu.Unlock()
	p.Disconnect()
}

// Stall holds the client's traffic both ways, on every connection current
// and future, for d from now (extending a stall under way), then
// forwards what was held; the sockets stay open, so both sides see
// silence.
func (p *Proxy) Stall(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	if p.held == nil {
		p.held = make(chan struct{})
	}
	if p.timer != nil {
		p.timer.Stop()
	}
	p.gen++
	gen := p.gen
	p.timer = time.AfterFunc(d, func() { p.resume(gen) })
}

func (p *Proxy) resume(gen int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if gen == p.gen && p.held != nil {
		close(p.held)
		p.held = nil
	}
}

// Stalled reports whether the proxy is holding the client's traffic.
func (p *Proxy) Stalled() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held != nil
}

// Close stops listening, cuts every connection and waits for the proxy's
// goroutines to end.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	if p.timer != nil {
		p.timer.Stop()
	}
	close(p.done)
	p.mu.Unlock()
	var err error
	for _, ln := range p.lns {
		err = errors.Join(err, ln.Close())
	}
	p.Disconnect()
	p.wg.Wait()
	return err
}

// wait returns once traffic may flow, false if the proxy or l closed
// first.
func (p *Proxy) wait(l *link) bool {
	p.mu.Lock()
	held := p.held
	p.mu.Unlock()
	if held == nil {
		return true
	}
	select {
	case <-held:
		return true
	case <-p.done:
		return false
	case <-l.done:
		return false
	}
}

// request counts a request of the client's, lets OnRequest arm a fault
// for it, and returns the fault it must suffer.
func (p *Proxy) request(op wire.Op) (int64, arm) {
	p.mu.Lock()
	p.requests++
	n := p.requests
	p.mu.Unlock()
	if p.cfg.OnRequest != nil {
		p.cfg.OnRequest(n, op)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.armed) == 0 {
		return n, 0
	}
	a := p.armed[0]
	p.armed = p.armed[1:]
	return n, a
}

func (p *Proxy) observe(e Effect) {
	if p.cfg.Observe != nil {
		p.cfg.Observe(e)
	}
}

func (p *Proxy) granted(server string, r wire.ConnectResponse) {
	if r.SessionID == 0 || r.TimeoutMs <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.session = expire.Credentials{Addr: server, SessionID: r.SessionID,
		Timeout: time.Duration(r.TimeoutMs) * time.Millisecond, Passwd: r.Passwd}
}

func (p *Proxy) accept(ln net.Listener, server string) {
	defer p.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go p.serve(c, server)
	}
}

// serve dials server for the client connection c and forwards frames
// both ways until either side ends or a fault cuts them.
func (p *Proxy) serve(c net.Conn, server string) {
	defer p.wg.Done()
	p.mu.Lock()
	dead := p.dead
	p.mu.Unlock()
	if dead {
		c.Close()
		return
	}
	s, err := net.DialTimeout("tcp", server, 5*time.Second)
	if err != nil {
		c.Close()
		return
	}
	l := &link{p: p, client: c, server: s, addr: server, done: make(chan struct{}), pending: map[int32]pending{}}
	if !p.register(l) {
		l.close()
		return
	}
	defer p.unregister(l)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		l.requests()
	}()
	l.replies()
}

func (p *Proxy) register(l *link) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.dead {
		return false
	}
	p.links[l] = struct{}{}
	return true
}

func (p *Proxy) unregister(l *link) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.links, l)
}
