package nemesis

import (
	"encoding/binary"
	"net"
	"sync"

	"github.com/zksim/zksim/internal/faultname"
	"github.com/zksim/zksim/internal/wire"
)

// link is one proxied connection: the accepted client side and the
// dialled server side, cut together.
type link struct {
	p              *Proxy
	client, server net.Conn
	addr           string // the server's
	done           chan struct{}
	once           sync.Once

	mu      sync.Mutex
	pending map[int32]pending // requests whose reply a fault awaits, by xid
}

// pending is a forwarded request whose reply a fault is waiting for.
type pending struct {
	arm arm
	n   int64
	op  wire.Op
}

func (l *link) close() {
	l.once.Do(func() {
		close(l.done)
		l.client.Close()
		l.server.Close()
	})
}

// requests forwards the client's frames to the server: first the connect
// request, then requests, each exposed to the fault armed for it.
func (l *link) requests() {
	defer l.close()
	first := true
	for {
		body, err := wire.ReadFrame(l.client, nil, maxFrame)
		if err != nil || !l.p.wait(l) {
			return
		}
		if !first && !l.request(body) {
			return
		}
		first = false
		if !l.p.wait(l) || write(l.server, body) != nil {
			return
		}
	}
}

// request applies to one request frame the fault armed for it, and says
// whether to forward it.
func (l *link) request(body []byte) bool {
	if len(body) < 8 {
		return true // the server will close on it; not the proxy's call
	}
	xid, op := int32(binary.BigEndian.Uint32(body)), wire.Op(binary.BigEndian.Uint32(body[4:]))
	if !counted(xid, op) {
		return true
	}
	n, a := l.p.request(op)
	switch a {
	case armLoseRequest:
		l.p.observe(Effect{Kind: faultname.LoseRequest, Request: n, Op: op, Server: l.addr})
		return false
	case armLoseReply, armCutAfter:
		l.mu.Lock()
		l.pending[xid] = pending{arm: a, n: n, op: op}
		l.mu.Unlock()
	}
	return true
}

// counted says whether a request is the client's own: not a ping, an
// auth (both with reserved negative xids), the re-registration of
// watches after a reconnect (go-zookeeper's, or zkapi/gozk's shim's with
// an xid of its own) or the session's close.
func counted(xid int32, op wire.Op) bool {
	switch op {
	case wire.OpCloseSession, wire.OpPing, wire.OpSetWatches, wire.OpSetWatches2:
		return false
	}
	return xid > 0
}

// replies forwards the server's frames to the client: first the connect
// response, whose session it notes, then replies and notifications, a
// reply awaited by a fault cutting the connection before or after it.
func (l *link) replies() {
	defer l.close()
	first := true
	for {
		body, err := wire.ReadFrame(l.server, nil, maxFrame)
		if err != nil || !l.p.wait(l) {
			return
		}
		if first {
			if r, err := wire.DecodeConnectResponse(body); err == nil {
				l.p.granted(l.addr, r)
			}
			first = false
			if write(l.client, body) != nil {
				return
			}
			continue
		}
		pend, ok := l.awaited(body)
		if ok && pend.arm == armLoseReply {
			l.p.observe(Effect{Kind: faultname.LoseReply, Request: pend.n, Op: pend.op, Server: l.addr})
			return
		}
		if write(l.client, body) != nil {
			return
		}
		if ok && pend.arm == armCutAfter {
			l.p.observe(Effect{Kind: faultname.Disconnect, Request: pend.n, Op: pend.op, Server: l.addr})
			return
		}
	}
}

// awaited returns the fault waiting for the reply body, if any.
func (l *link) awaited(body []byte) (pending, bool) {
	if len(body) < 4 {
		return pending{}, false
	}
	xid := int32(binary.BigEndian.Uint32(body))
	l.mu.Lock()
	defer l.mu.Unlock()
	p, ok := l.pending[xid]
	if ok {
		delete(l.pending, xid)
	}
	return p, ok
}

// write sends body as one frame, its length and body in one writev.
func write(c net.Conn, body []byte) error {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(body)))
	bufs := net.Buffers{n[:], body}
	_, err := bufs.WriteTo(c)
	return err
}
