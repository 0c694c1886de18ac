// Package simwire puts a real ZooKeeper client, go-zookeeper's *zk.Conn,
// unmodified, on a simulated client of package sim: the client dials
// through an in-memory pipe, and its bridge, running as the simulated
// client's program, turns each frame it writes into the simulated
// client's request, whose fate (sent, lost, its reply lost, the
// connection dropped) the scheduler chooses, and writes back each reply
// and watch notification the scheduler delivers, in the wire's format.
//
// Everything runs inside one testing/synctest bubble a run, so the real
// client's goroutines, timers and deadlines live on the bubble's fake
// clock. A bridge lets them run only until they are durably blocked
// (synctest.Wait) before it hands control back to the scheduler, and
// virtual time passes only at the scheduler's ticks (Tick): so between
// two steps of the scheduler nothing runs, and a run is a function of its
// choices, as for zksim's own clients.
//
// What the real client draws at random is made deterministic on the wire,
// without patching it: the GUID of a protected create ("_c_<32 hex>-")
// is replaced, in every frame to the simulator, by one numbered per
// client in the order the client first sent it, and back in every frame
// to the client.
package simwire

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"testing/synctest"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/internal/simhook"
	"github.com/zksim/zksim/internal/wire"
	"github.com/zksim/zksim/internal/zkclient"
	"github.com/zksim/zksim/sim"
	"github.com/zksim/zksim/zkapi"
)

// Client is a real client on one simulated client.
type Client struct {
	sc     *sim.Client
	t      zkclient.Transport
	conn   *zk.Conn
	events <-chan zk.Event

	mu      sync.Mutex
	dialing bool // the real client waits in its dialer
	notes   []proto.Notification
	running bool // a call of Do is running: its function has not returned

	programs sync.WaitGroup // the goroutines of Do's functions

	atGate bool // the real client's connect loop waits in its host provider
	gate   chan struct{}
	dials  chan net.Conn
	dead   chan struct{} // closed by Close: the dialer fails
	cur    *link         // the connection, once dialed, until it is cut
	shook  bool          // cur's handshake is done
	sess   int64         // the session cur's handshake gave
	watch  []zkapi.Watch // watches the simulated client holds for the real one, not yet fired
	guids  guids
	ended  bool
}

// Dialed makes the real client of sc: a *zk.Conn whose connections are
// in memory, to the simulator, with the session timeout the simulated
// client was given, and one server address a member of the ensemble. It dials at once, but its session opens only in Do. Call
// from sc's program.
func Dialed(sc *sim.Client) (*Client, error) {
	b := &Client{sc: sc, dials: make(chan net.Conn, 1), gate: make(chan struct{}, 1), dead: make(chan struct{}),
		guids: guids{client: sc.Index()}}
	t, ok := sc.Conn().(zkclient.Transport)
	if !ok {
		return nil, fmt.Errorf("simwire: %s's conn takes no wire requests", sc.Name())
	}
	b.t = t
	simhook.Wire(sc)
	m := sc.Sim().State().(*machine.Machine)
	timeout := time.Duration(m.SessionTimeout(sc.Session())) * time.Millisecond
	servers := make([]string, m.Config().Followers+1)
	for i := range servers {
		servers[i] = fmt.Sprintf("127.0.0.%d:2181", i+1)
	}
	conn, events, err := zk.Connect(servers, timeout, zk.WithDialer(b.dial), zk.WithHostProvider(&hosts{b: b}),
		zk.WithLogger(quiet{}), zk.WithLogInfo(false), zk.WithMaxBufferSize(maxReply))
	if err != nil {
		return nil, err
	}
	b.conn, b.events = conn, events
	return b, nil
}

// Conn is the real client.
func (b *Client) Conn() *zk.Conn { return b.conn }

// Events is the real client's event channel, as zk.Connect returned it:
// read it, or leave it be (go-zookeeper drops what overflows it).
func (b *Client) Events() <-chan zk.Event { return b.events }

// Notified queues a notification the scheduler delivered to the
// simulated client, for the real one (simhook.Notifier).
func (b *Client) Notified(n proto.Notification) {
	b.mu.Lock()
	b.notes = append(b.notes, n)
	b.mu.Unlock()
}

// Do runs f, which calls the real client, in a goroutine of its own, and
// serves the real client's connection until f returns: each time the
// bubble is quiet it does one thing the real client is waiting for, or
// parks the simulated client until there is one. Call from the
// simulated client's program.
func (b *Client) Do(f func() error) error {
	done := make(chan error, 1)
	b.mu.Lock()
	b.running = true
	b.mu.Unlock()
	b.programs.Add(1)
	go func() {
		defer b.programs.Done()
		err := f()
		b.mu.Lock()
		b.running = false
		b.mu.Unlock()
		done <- err
	}()
	for {
		synctest.Wait()
		select {
		case err := <-done:
			return err
		default:
		}
		b.step()
	}
}

// step does one thing the real client waits for, in a fixed order, or
// parks until there is one.
func (b *Client) step() {
	switch {
	case b.waitsAtGate():
		b.mu.Lock()
		b.atGate = false
		b.mu.Unlock()
		b.gate <- struct{}{}
	case b.cur != nil && b.stale():
		b.cutLink("the simulated connection is down")
	case b.cur == nil && b.isDialing() && simhook.Live(b.sc):
		b.connect()
	case b.cur != nil && b.serveFrame():
	case b.cur != nil && b.shook && b.forward():
	default:
		simhook.Await(b.sc, b.ready, b.waitingOn())
	}
}

// ready is the condition the simulated client is parked on: something
// to do for the real one (called by the scheduler between steps).
func (b *Client) ready() bool {
	b.mu.Lock()
	running, atGate, dialing, notes := b.running, b.atGate, b.dialing, len(b.notes) > 0
	b.mu.Unlock()
	switch {
	case !running || atGate:
		return true
	case b.cur == nil:
		return dialing && simhook.Live(b.sc)
	}
	return b.cur.pending() || b.shook && notes
}

// stale reports whether the link no longer stands for the simulated
// connection: the client closed it, or the simulated connection dropped
// or moved to another session.
func (b *Client) stale() bool {
	if b.cur.isEnded() {
		return true
	}
	if !b.shook {
		return false
	}
	return !simhook.Live(b.sc) || b.sc.Session() != b.sess
}

func (b *Client) cutLink(why string) {
	b.cur.end()
	b.cur, b.shook, b.sess = nil, false, 0
	b.sc.Logf("wire: connection closed (%s)", why)
}

// connect hands the waiting dialer a new pipe.
func (b *Client) connect() {
	b.mu.Lock()
	b.dialing = false
	b.mu.Unlock()
	b.cur = newLink()
	b.dials <- b.cur
}

// serveFrame takes the oldest frame the real client wrote and acts on
// it; false if there is none.
func (b *Client) serveFrame() bool {
	frame, ok := b.cur.take()
	if !ok {
		return false
	}
	b.guids.toSim(frame)
	if !b.shook {
		b.handshake(frame)
		return true
	}
	req, err := wire.DecodeRequest(frame)
	if err != nil {
		b.cutLink(fmt.Sprintf("an unreadable request: %v", err))
		return true
	}
	switch {
	case req.Op == wire.OpPing:
		if simhook.Live(b.sc) {
			b.reply(wire.AppendHeader(nil, xidPing, 0, 0))
		}
	case req.Op == wire.OpCloseSession:
		b.sc.Conn().Close()
		b.reply(wire.AppendHeader(nil, req.Xid, 0, 0))
		b.cutLink("the session was closed")
	case req.Op == wire.OpSetWatches || req.Op == wire.OpSetWatches2:
		// The simulated client set its watches again when it
		// reconnected: the same ones, since the real client's are
		// those its replies set.
		b.reply(wire.AppendHeader(nil, req.Xid, 0, 0))
	case req.Code != 0:
		b.reply(wire.AppendRefusal(nil, req, 0))
	case req.Body == nil:
		b.reply(wire.AppendHeader(nil, req.Xid, 0, int32(wire.CodeUnimplemented)))
	default:
		b.request(req)
	}
	return true
}

// request sends req through the simulated client: the scheduler
// chooses its fate.
func (b *Client) request(req wire.Request) {
	path := ""
	if p := proto.Paths(req.Body); len(p) > 0 {
		path = p[0]
	}
	rep, w, err := b.t.Do(context.Background(), req.Op.String(), path, req.Body)
	switch {
	case err == nil || rep.Err != nil:
		if w != nil {
			b.watch = append(b.watch, w)
		}
		b.reply(wire.AppendReply(nil, req, rep))
	case errors.Is(err, zkapi.ErrBadArguments):
		b.reply(wire.AppendHeader(nil, req.Xid, 0, proto.Code(zkapi.ErrBadArguments)))
	default: // the connection was lost, or the session expired or closed
		if b.cur != nil {
			b.cutLink(err.Error())
		}
	}
}

// handshake answers a ConnectRequest with the simulated client's
// session: resumed if the real client asks for it, refused as expired if
// it asks for an older one (it then dials again for a new one).
func (b *Client) handshake(frame []byte) {
	c, err := wire.DecodeConnect(frame)
	if err != nil {
		b.cutLink(fmt.Sprintf("an unreadable connect request: %v", err))
		return
	}
	if !simhook.Live(b.sc) {
		b.cutLink("the simulated connection is down")
		return
	}
	id := b.sc.Session()
	m := b.sc.Sim().State().(*machine.Machine)
	if c.SessionID != 0 && c.SessionID != id {
		b.reply(wire.AppendConnectResponse(nil, wire.ConnectResponse{Passwd: make([]byte, 16)}, c.HasReadOnly))
		b.cutLink(fmt.Sprintf("session %#x expired", c.SessionID))
		return
	}
	b.reply(wire.AppendConnectResponse(nil, wire.ConnectResponse{TimeoutMs: int32(m.SessionTimeout(id)),
		SessionID: id, Passwd: make([]byte, 16)}, c.HasReadOnly))
	b.shook, b.sess = true, id
	b.cur.setLive(true)
	b.sc.Logf("wire: session %#x", id)
}

// forward writes the notifications delivered since the last, in order;
// false if there were none. Watch.Wait is not called for the watches
// they fire: whether the program reads its event is its own affair, so
// the herd checker, which counts the Waits that return, sees no wake-up
// of a real client.
func (b *Client) forward() bool {
	b.mu.Lock()
	notes := b.notes
	b.notes = nil
	b.mu.Unlock()
	if len(notes) == 0 {
		return false
	}
	for _, n := range notes {
		b.reply(wire.AppendNotification(nil, n))
	}
	b.watch = slices.DeleteFunc(b.watch, func(w zkapi.Watch) bool { return simhook.Fired(w) })
	return true
}

// reply writes a frame to the real client, its GUIDs its own again, and
// adds it to what the simulated client was told.
func (b *Client) reply(frame []byte) {
	simhook.Told(b.sc, frame)
	b.guids.toClient(frame)
	b.cur.send(frame)
}

// waitingOn is the watch a deadlock names: the newest one not fired.
func (b *Client) waitingOn() any {
	if n := len(b.watch); n > 0 {
		return b.watch[n-1]
	}
	return nil
}

// Tick runs before virtual time passes on the bubble's clock: the
// link answers pings only while the simulated connection is live.
func (b *Client) Tick() {
	if b.cur != nil && b.shook {
		b.cur.setLive(simhook.Live(b.sc) && b.sc.Session() == b.sess)
	}
}

// Close ends the real client, its connections and its goroutines, as a
// run ends, and returns once they have ended (a bubble ends only when
// all its goroutines have). Call from the bubble, after the scheduler
// stopped. The order matters: go-zookeeper's connect loop fails the
// requests still queued only on its way out through a reconnect, never
// when it ends connected, and a request left queued would block its
// goroutine for good. So the link is cut and the loop let run to its
// host provider or dialer first; then the client is closed; then the
// dialer and host provider fail, and the loop fails what is queued and
// ends, closing the event channel. A program still running must then
// return (its calls fail): Close panics, naming it, if it has not within
// a minute of virtual time.
func (b *Client) Close() {
	if b.ended {
		return
	}
	b.ended = true
	if b.cur != nil {
		b.cur.end()
		b.cur = nil
	}
	synctest.Wait()
	closed := make(chan struct{})
	go func() {
		b.conn.Close()
		close(closed)
	}()
	synctest.Wait()
	close(b.dead)
	deadline := time.After(time.Minute)
	late := func(what string) {
		panic(fmt.Sprintf("simwire: %s's %s did not return within a minute (of virtual time) after its run ended "+
			"and its *zk.Conn was closed: a program must return once its ctx ends or its conn is closed", b.sc.Name(), what))
	}
	for open := true; open; { // go-zookeeper closes its event channel once its loop has ended
		select {
		case _, open = <-b.events:
		case <-deadline:
			late("go-zookeeper client")
		}
	}
	programs := make(chan struct{})
	go func() {
		b.programs.Wait()
		close(programs)
	}()
	for _, ch := range []chan struct{}{closed, programs} {
		select {
		case <-ch:
		case <-deadline:
			late("program")
		}
	}
}

func (b *Client) dial(string, string, time.Duration) (net.Conn, error) {
	b.mu.Lock()
	b.dialing = true
	b.mu.Unlock()
	select {
	case c := <-b.dials:
		return c, nil
	case <-b.dead:
		return nil, errRunOver
	}
}

var errRunOver = errors.New("simwire: the run is over")

func (b *Client) waitsAtGate() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.atGate
}

// hosts is the real client's host provider: go-zookeeper's own
// (DNSHostProvider) in what it answers, round robin over the servers,
// with a retry once every server has been tried since the last
// connection, but each call waits for the bridge. go-zookeeper's connect
// loop asks it right after a connection ends, while the program, woken
// by the requests that failed, may be queueing its next one; at a retry
// the loop fails every queued request (ErrNoServer), so which of the two
// goes first decides a run. Waiting here until the bubble is quiet
// settles it: the program queues first, as one that is quick would.
type hosts struct {
	b          *Client
	servers    []string
	curr, last int
}

func (h *hosts) Init(servers []string) error {
	h.servers, h.curr, h.last = servers, -1, -1
	return nil
}

func (h *hosts) Len() int { return len(h.servers) }

func (h *hosts) Next() (string, bool) {
	h.b.mu.Lock()
	h.b.atGate = true
	h.b.mu.Unlock()
	select {
	case <-h.b.gate:
	case <-h.b.dead:
	}
	h.curr = (h.curr + 1) % len(h.servers)
	retry := h.curr == h.last
	if h.last == -1 {
		h.last = 0
	}
	return h.servers[h.curr], retry
}

func (h *hosts) Connected() { h.last = h.curr }

func (b *Client) isDialing() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.dialing
}

// The real client is given one address a server of the simulated
// ensemble (the leader and its followers), IP addresses its host
// provider needs no DNS lookup to resolve: it retries as it would with as
// many real servers (with one, it waits a second of virtual time before
// each reconnect, and fails requests queued meanwhile with ErrNoServer).
// Which server it dials changes nothing: the simulated client's own
// policy picks the replica.

type quiet struct{}

func (quiet) Printf(string, ...any) {}

// maxReply bounds the reply the real client reads (go-zookeeper's
// WithMaxBufferSize); a longer one ends its connection. go-zookeeper's
// default, 1.5 MB, is a buffer it zeroes on every connection: in a
// simulator that connects thousands of times a second, it cost more
// than the rest of a run. 64 KiB holds any reply of a workload that
// keeps its data small.
const maxReply = 64 << 10
