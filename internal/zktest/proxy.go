package zktest

import (
	"context"
	"fmt"
	"net"
	"sync"
)

// Proxy forwards TCP connections from a loopback listener to one target, and
// can stop forwarding or drop connections on demand, to give a client
// connection loss against a real server.
//
// Stall and Resume act on every connection, current and future; Disconnect
// closes the current ones only. A Proxy's goroutines all end by the time Close
// returns.
type Proxy struct {
	target string
	ln     net.Listener
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	running chan struct{} // closed while forwarding, open while stalled
	links   map[*link]struct{}
	closed  bool

	closeOnce sync.Once
	closeErr  error
}

// link is one proxied connection: the accepted client side and the dialled
// server side, closed together.
type link struct {
	client, server net.Conn
	done           chan struct{}
	once           sync.Once
}

func (l *link) close() {
	l.once.Do(func() {
		close(l.done)
		l.client.Close()
		l.server.Close()
	})
}

// NewProxy listens on 127.0.0.1 on a free port and forwards every
// connection it accepts to target.
func NewProxy(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("zktest: proxy for %s: %w", target, err)
	}
	running := make(chan struct{})
	close(running)
	ctx, cancel := context.WithCancel(context.Background())
	p := &Proxy{target: target, ln: ln, ctx: ctx, cancel: cancel, running: running, links: make(map[*link]struct{})}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the address clients should connect to.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Stall stops forwarding in both directions; sockets stay open, so the
// peers see silence rather than a closed connection (not the simulator's
// Pause, which stops a client). Bytes already being written when Stall is
// called may still arrive.
func (p *Proxy) Stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.stalled() {
		p.running = make(chan struct{})
	}
}

// Resume forwards again, starting with what was held back.
func (p *Proxy) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stalled() {
		close(p.running)
	}
}

// stalled is called with p.mu held.
func (p *Proxy) stalled() bool {
	select {
	case <-p.running:
		return false
	default:
		return true
	}
}

// Disconnect closes every current connection, both sides; new connections
// are still accepted.
func (p *Proxy) Disconnect() {
	p.mu.Lock()
	links := make([]*link, 0, len(p.links))
	for l := range p.links {
		links = append(links, l)
	}
	p.mu.Unlock()
	for _, l := range links {
		l.close()
	}
}

// Close stops listening, closes every connection and waits for all the
// proxy's goroutines to end. Later calls return the first call's result.
func (p *Proxy) Close() error {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		p.cancel()
		p.closeErr = p.ln.Close()
		p.Disconnect()
		p.wg.Wait()
	})
	return p.closeErr
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go p.serve(c)
	}
}

// serve dials the target for client c and forwards until either side ends.
func (p *Proxy) serve(c net.Conn) {
	defer p.wg.Done()
	var d net.Dialer
	s, err := d.DialContext(p.ctx, "tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	l := &link{client: c, server: s, done: make(chan struct{})}
	if !p.register(l) {
		l.close()
		return
	}
	defer p.unregister(l)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.pipe(l, s, c)
	}()
	p.pipe(l, c, s)
}

func (p *Proxy) register(l *link) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
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

// pipe copies src to dst, holding at the gate while stalled, and closes the
// link when either side fails so that the other direction ends too.
func (p *Proxy) pipe(l *link, dst, src net.Conn) {
	defer l.close()
	buf := make([]byte, 32<<10)
	for p.gate(l) {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.gate(l) {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// gate returns true once forwarding is allowed, false if l closed first.
func (p *Proxy) gate(l *link) bool {
	p.mu.Lock()
	running := p.running
	p.mu.Unlock()
	select {
	case <-running:
		return true
	case <-l.done:
		return false
	}
}
