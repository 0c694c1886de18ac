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
	sc   *sim.Client
	t    zkclient.Transport
	conn *zk.Conn

	mu      sync.Mutex
	dialing bool // the real client waits in its dialer
	notes   []proto.Notification
	running bool // a call of Do is running: its function has not returned

	dials chan net.Conn
	dead  chan struct{} // closed by Close: the dialer fails
	cur   *link         // the connection, once dialed, until it is cut
	shook bool          // cur's handshake is done
	sess  int64         // the session cur's handshake gave
	watch []zkapi.Watch // watches the simulated client holds for the real one, not yet fired
	guids guids
	ended bool
}

// Dialed makes the real client of sc: a *zk.Conn whose connections are
// pipes to the simulator, with the session timeout the simulated client
// asks for. It dials at once, but its session opens only in Do. Call
// from sc's program.
func Dialed(sc *sim.Client) (*Client, error) {
	b := &Client{sc: sc, dials: make(chan net.Conn, 1), dead: make(chan struct{}), guids: guids{client: sc.Index()}}
	t, ok := sc.Conn().(zkclient.Transport)
	if !ok {
		return nil, fmt.Errorf("simwire: %s's conn takes no wire requests", sc.Name())
	}
	b.t = t
	m := sc.Sim().State().(*machine.Machine)
	timeout := time.Duration(m.SessionTimeout(sc.Session())) * time.Millisecond
	conn, _, err := zk.Connect([]string{address}, timeout, zk.WithDialer(b.dial),
		zk.WithLogger(quiet{}), zk.WithLogInfo(false))
	if err != nil {
		return nil, err
	}
	b.conn = conn
	return b, nil
}

// Conn is the real client.
func (b *Client) Conn() *zk.Conn { return b.conn }

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
	go func() {
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
	if !b.isRunning() {
		return true
	}
	if b.cur == nil {
		return b.isDialing() && simhook.Live(b.sc)
	}
	if b.cur.pending() {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.shook && len(b.notes) > 0
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
	b.cur.cut()
	b.cur, b.shook, b.sess = nil, false, 0
	b.sc.Logf("wire: connection closed (%s)", why)
}

// connect hands the waiting dialer a new pipe.
func (b *Client) connect() {
	client, server := net.Pipe()
	b.mu.Lock()
	b.dialing = false
	b.mu.Unlock()
	b.cur = newLink(server)
	b.dials <- client
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

// forward writes the notifications delivered since the last, in order,
// and lets the watches they fired return; false if there were none.
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
	kept := b.watch[:0]
	for _, w := range b.watch {
		if !fired(w) {
			kept = append(kept, w)
			continue
		}
		w.Wait(context.Background()) // returns at once: the wake-up the checkers count
	}
	clear(b.watch[len(kept):])
	b.watch = kept
	return true
}

// fired reports whether a watch has an event to return: a Wait on a
// context that has ended returns at once, with its event if it has one.
func fired(w zkapi.Watch) bool {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := w.Wait(ctx)
	return err == nil
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
// run ends: the dialer fails, the link is cut, the client closed. Call
// from the bubble, after the scheduler stopped.
func (b *Client) Close() {
	if b.ended {
		return
	}
	b.ended = true
	close(b.dead)
	if b.cur != nil {
		b.cur.cut()
		b.cur = nil
	}
	b.conn.Close()
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

func (b *Client) isDialing() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.dialing
}

func (b *Client) isRunning() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.running
}

// address is the simulator's, as the real client's host provider
// sees it: an IP address, which it needs no DNS lookup to resolve. With
// one address, go-zookeeper waits a second (of virtual time) before each
// reconnect, as it does with one real server.
const address = "127.0.0.1:2181"

type quiet struct{}

func (quiet) Printf(string, ...any) {}
