package ensemble

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"
)

// MaxLag bounds Lag. A follower that hears nothing from its leader for
// syncLimit x tickTime (5 x 500 ms) gives it up and looks for another,
// and the leader drops a follower as silent; the leader pings every
// half tick, so a hold of d leaves the follower without a byte for up
// to d + 250 ms. 2 s keeps a quarter of a second of slack: the follower
// lags, and stays in the quorum.
const MaxLag = 2 * time.Second

// Election protocol versions (QuorumCnxManager.PROTOCOL_VERSION_V1/V2):
// the first 8 bytes of a connection to an election port, followed by
// the sender's id (8 bytes), and the length (4) and text of the
// election address(es) it can be called back on.
const (
	electionV1 = -65536
	electionV2 = -65535
	// maxAdvert bounds the advertised address text (ZooKeeper's own
	// bound, maxBuffer, is 512 KB; an address list is tens of bytes).
	maxAdvert = 4096
)

// relayKind says which of a member's peer ports a relay leads to.
type relayKind int

const (
	quorumPort   relayKind = iota // followers to their leader
	electionPort                  // leader election, every member to every other
)

// peerNet is every link between two members, each through a loopback
// relay of its own: member i's zoo.cfg names, for member j, the relays
// (i, j) that forward to j's real quorum and election ports, so what i
// sends j passes through them and can be cut or held. It lives as long
// as the ensemble: made before the members start, closed after they
// stop.
//
// One catch makes it hold: a member that opens an election connection
// to a member of higher id is hung up on and called back, at the
// address it advertised in its first message (its own server line: its
// real port). The election relay therefore rewrites that address to the
// relay leading back (j, i), so the call-back passes through a relay
// too.
type peerNet struct {
	n      int
	relays map[[3]int]*relay // by (from, to, kind)
	wg     sync.WaitGroup

	mu       sync.Mutex
	closed   bool
	isolated []bool
	heldTill []time.Time   // by member: bytes on its quorum links to it are held until then
	changed  chan struct{} // closed (and replaced) when a hold changes
	pipes    map[*pipe]struct{}
}

// relay forwards connections from member from to one port of member to.
type relay struct {
	net      *peerNet
	from, to int
	kind     relayKind
	ln       net.Listener
	target   string // to's real port
}

// pipe is one relayed connection: src accepted from the member that
// dialled, dst dialled to the target.
type pipe struct {
	r        *relay
	src, dst net.Conn
	done     chan struct{}
	once     sync.Once
}

// newPeerNet listens for every relay of n members whose real ports
// are ports (three per member: client, quorum, election).
func newPeerNet(n int, ports []int) (*peerNet, error) {
	p := &peerNet{n: n, relays: map[[3]int]*relay{}, isolated: make([]bool, n),
		heldTill: make([]time.Time, n), changed: make(chan struct{}), pipes: map[*pipe]struct{}{}}
	for from := range n {
		for to := range n {
			if from == to {
				continue
			}
			for _, k := range []relayKind{quorumPort, electionPort} {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					p.close()
					return nil, fmt.Errorf("ensemble: peer relay: %w", err)
				}
				target := "127.0.0.1:" + strconv.Itoa(ports[3*to+1+int(k)])
				p.relays[[3]int{from, to, int(k)}] = &relay{net: p, from: from, to: to, kind: k, ln: ln, target: target}
			}
		}
	}
	for _, r := range p.relays {
		p.wg.Add(1)
		go r.accept()
	}
	return p, nil
}

// port is the port member from's config names for member to's peer
// port of kind k.
func (p *peerNet) port(from, to int, k relayKind) int {
	return p.relays[[3]int{from, to, int(k)}].ln.Addr().(*net.TCPAddr).Port
}

// close closes every relay and relayed connection, and waits for their
// goroutines. A nil peerNet (one member) has none.
func (p *peerNet) close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.closed = true
	for c := range p.pipes {
		c.close()
	}
	p.mu.Unlock()
	for _, r := range p.relays {
		r.ln.Close()
	}
	p.wg.Wait()
}

// isolate cuts (on) or heals (off) every link to and from member m: on
// closes its relayed connections and has its relays hang up on new
// ones at once, as a partition's refused connections would.
func (p *peerNet) isolate(m int, on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.isolated[m] = on
	if !on {
		return
	}
	for c := range p.pipes {
		if c.r.from == m || c.r.to == m {
			c.close()
		}
	}
}

// hold holds, until until, the bytes member m receives on the quorum
// links it opened: a follower's one link, to its leader. A time past
// releases them at once.
func (p *peerNet) hold(m int, until time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.heldTill[m] = until
	close(p.changed)
	p.changed = make(chan struct{})
}

// heldFor is how long bytes to member m are still held (<= 0: not), and
// a channel closed when any hold changes.
func (p *peerNet) heldFor(m int) (time.Duration, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return time.Until(p.heldTill[m]), p.changed
}

// cut says whether r's link is cut now.
func (p *peerNet) cut(r *relay) bool {
	return p.closed || p.isolated[r.from] || p.isolated[r.to]
}

func (r *relay) accept() {
	defer r.net.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		r.net.wg.Add(1)
		go r.serve(c)
	}
}

// serve relays one connection, unless the link is cut.
func (r *relay) serve(src net.Conn) {
	defer r.net.wg.Done()
	p := r.net
	p.mu.Lock()
	cut := p.cut(r)
	p.mu.Unlock()
	if cut {
		src.Close()
		return
	}
	dst, err := r.dial()
	if err != nil {
		src.Close() // the member is down, or the link was cut meanwhile
		return
	}
	c := &pipe{r: r, src: src, dst: dst, done: make(chan struct{})}
	p.mu.Lock()
	if p.cut(r) {
		p.mu.Unlock()
		c.close()
		return
	}
	p.pipes[c] = struct{}{}
	p.mu.Unlock()
	var wg sync.WaitGroup
	wg.Go(c.forward)
	c.backward()
	wg.Wait()
	p.mu.Lock()
	delete(p.pipes, c)
	p.mu.Unlock()
}

// dialPatience is how long a relay tries to reach a port that refuses
// it. The relay has accepted the dialling member's connection already
// (the kernel does, on listen), so a refusal it passed on would look
// like a connection that broke at once: a follower that dials its new
// leader before the leader listens on its quorum port (a few
// milliseconds after the election) would give it up and start another
// election, which the leader only ends after initLimit ticks (5 s). A
// direct connection would be refused, and the follower would retry; the
// relay retries for it, for less than the follower's own patience
// (initLimit ticks), as long as the link is not cut.
const dialPatience = 2 * time.Second

// dial connects to the relay's target, retrying while it refuses, for
// up to dialPatience.
func (r *relay) dial() (net.Conn, error) {
	deadline := time.Now().Add(dialPatience)
	for {
		dst, err := net.DialTimeout("tcp", r.target, time.Second)
		if err == nil {
			return dst, nil
		}
		r.net.mu.Lock()
		cut := r.net.cut(r)
		r.net.mu.Unlock()
		if cut || time.Now().After(deadline) {
			return nil, err
		}
		time.Sleep(pollEvery)
	}
}

func (c *pipe) close() {
	c.once.Do(func() {
		close(c.done)
		c.src.Close()
		c.dst.Close()
	})
}

// forward copies what the dialling member sends, its election address
// rewritten first on an election link.
func (c *pipe) forward() {
	defer c.close()
	if c.r.kind == electionPort && c.rewriteAdvert() != nil {
		return
	}
	io.Copy(c.dst, c.src)
}

// rewriteAdvert passes on the first message of an election connection
// with the address it advertises replaced by the relay back to its
// sender, so that a call-back passes a relay too. Another protocol
// version (an old server's bare id) passes unchanged.
func (c *pipe) rewriteAdvert() error {
	var head [20]byte
	if _, err := io.ReadFull(c.src, head[:8]); err != nil {
		return err
	}
	v := int64(binary.BigEndian.Uint64(head[:8]))
	if v != electionV1 && v != electionV2 {
		_, err := c.dst.Write(head[:8])
		return err
	}
	if _, err := io.ReadFull(c.src, head[8:]); err != nil {
		return err
	}
	n := binary.BigEndian.Uint32(head[16:])
	if n > maxAdvert {
		return fmt.Errorf("ensemble: election address of %d bytes", n)
	}
	if _, err := io.CopyN(io.Discard, c.src, int64(n)); err != nil {
		return err
	}
	back := "127.0.0.1:" + strconv.Itoa(c.r.net.port(c.r.to, c.r.from, electionPort))
	binary.BigEndian.PutUint32(head[16:], uint32(len(back)))
	_, err := c.dst.Write(append(head[:], back...))
	return err
}

// backward copies what the target member sends back; on a quorum link
// each chunk waits while the dialling member's stream is held.
func (c *pipe) backward() {
	defer c.close()
	if c.r.kind != quorumPort {
		io.Copy(c.src, c.dst)
		return
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := c.dst.Read(buf)
		if n > 0 {
			if !c.waitHold() {
				return
			}
			if _, werr := c.src.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// waitHold waits while the dialling member's stream is held; false if
// the pipe closed meanwhile.
func (c *pipe) waitHold() bool {
	for {
		d, changed := c.r.net.heldFor(c.r.from)
		if d <= 0 {
			return true
		}
		t := time.NewTimer(d)
		select {
		case <-c.done:
			t.Stop()
			return false
		case <-changed:
			t.Stop()
		case <-t.C:
		}
	}
}
