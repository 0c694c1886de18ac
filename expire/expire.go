// Package expire ends a live ZooKeeper session on demand, from outside the
// client that owns it, as a server ends an expired one: its ephemeral
// nodes are deleted and their watches fire at once, and the owner learns
// of the expiry when it next reconnects. zksim run uses it for -faults
// expire=N on real servers, and tests use it to force the expiry that a
// paused process would cause, which stopping a server with SIGSTOP does
// not cause reliably.
//
// The technique is Curator's KillSession test utility. A [Capture], passed
// to go-zookeeper as its Dialer (zk.WithDialer(capture.Dial)), reads the
// ConnectResponse the server sends first on every connection and keeps
// each session's id, password and timeout. [Kill] then presents those
// credentials on a connection of its own, which moves the session onto it
// (the server drops the owner's connection), and sends closeSession. Both
// speak the client protocol through package wire, so the bytes are those
// the fake server (zksim serve) decodes.
package expire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/zksim/zksim/internal/wire"
)

// Errors returned by this package, compared with errors.Is; returned
// errors wrap them with the address or session concerned.
var (
	// ErrSessionGone: the server refused the credentials because the
	// session has already expired or been closed.
	ErrSessionGone = errors.New("expire: session already expired or closed")
	// ErrUnknownSession: a Capture saw no ConnectResponse for the id.
	ErrUnknownSession = errors.New("expire: session not captured")
	// ErrServerError: the server answered closeSession with an error code.
	ErrServerError = errors.New("expire: server returned an error")
	// ErrBadReply: the server's answer is not the record expected.
	ErrBadReply = errors.New("expire: unexpected reply")
)

// maxFrame bounds the frames this package reads: a ConnectResponse is 37
// bytes with a 16-byte password, a closeSession reply 16; anything near
// this is neither.
const maxFrame = 1 << 16

// closeXid is the xid Kill sends closeSession with.
const closeXid int32 = 1

// Credentials are what a client must present to take over a session: the
// server address it last connected to, the session id, the negotiated
// timeout and the session password.
type Credentials struct {
	Addr      string
	SessionID int64
	Timeout   time.Duration
	Passwd    []byte
}

// Capture records the credentials of every session a client establishes
// through its Dial. The zero value is ready to use and safe for
// concurrent use; one capture may serve several clients.
type Capture struct {
	mu       sync.Mutex
	sessions map[int64]Credentials
}

// Dial connects like net.DialTimeout and watches the first frame the
// server sends, the ConnectResponse; every byte still reaches the caller
// unchanged. Its signature is go-zookeeper's zk.Dialer.
func (c *Capture) Dial(network, address string, timeout time.Duration) (net.Conn, error) {
	conn, err := net.DialTimeout(network, address, timeout)
	if err != nil {
		return nil, err
	}
	return &capturedConn{Conn: conn, capture: c, addr: address}, nil
}

// Credentials returns the latest credentials seen for sessionID.
func (c *Capture) Credentials(sessionID int64) (Credentials, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cred, ok := c.sessions[sessionID]
	if ok {
		cred.Passwd = bytes.Clone(cred.Passwd)
	}
	return cred, ok
}

// Kill ends sessionID on the server it last connected to; see Kill.
func (c *Capture) Kill(ctx context.Context, sessionID int64) error {
	cred, ok := c.Credentials(sessionID)
	if !ok {
		return fmt.Errorf("%w: 0x%x", ErrUnknownSession, sessionID)
	}
	return Kill(ctx, cred.Addr, cred)
}

func (c *Capture) record(cred Credentials) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sessions == nil {
		c.sessions = make(map[int64]Credentials)
	}
	c.sessions[cred.SessionID] = cred
}

// capturedConn copies what the server sends until it holds the first
// frame, then stops looking. A refused session (id 0) is not recorded.
type capturedConn struct {
	net.Conn
	capture *Capture
	addr    string

	mu   sync.Mutex
	buf  []byte
	done bool
}

func (cc *capturedConn) Read(p []byte) (int, error) {
	n, err := cc.Conn.Read(p)
	if n > 0 {
		cc.observe(p[:n])
	}
	return n, err
}

func (cc *capturedConn) observe(b []byte) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.done {
		return
	}
	cc.buf = append(cc.buf, b...)
	body, err := wire.ReadFrame(bytes.NewReader(cc.buf), nil, maxFrame)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return // the frame has not all arrived
	}
	cc.done, cc.buf = true, nil
	if err != nil {
		return
	}
	if r, err := wire.DecodeConnectResponse(body); err == nil && r.SessionID != 0 && r.TimeoutMs > 0 {
		cc.capture.record(Credentials{Addr: cc.addr, SessionID: r.SessionID,
			Timeout: time.Duration(r.TimeoutMs) * time.Millisecond, Passwd: r.Passwd})
	}
}

// Kill closes a live session as if its owner had: it connects to addr
// presenting cred, which moves the session onto this connection (the
// server drops the owner's connection), then sends closeSession and waits
// for the reply, by which time the session's ephemerals are gone and
// their watches have fired. The owner learns of the expiry when it
// reconnects. If the server no longer knows the session, the error wraps
// ErrSessionGone.
func Kill(ctx context.Context, addr string, cred Credentials) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("expire: kill session 0x%x at %s: %w", cred.SessionID, addr, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if err := killOn(conn, cred); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return fmt.Errorf("expire: kill session 0x%x at %s: %w", cred.SessionID, addr, err)
	}
	return nil
}

// killOn resumes cred's session on conn and closes it. The ConnectRequest
// says lastZxidSeen 0, which is never ahead of the server, and sends the
// readOnly flag, as current clients do.
func killOn(conn net.Conn, cred Credentials) error {
	connect := wire.AppendConnect(nil, wire.ConnectRequest{
		TimeoutMs: int32(cred.Timeout / time.Millisecond), SessionID: cred.SessionID,
		Passwd: cred.Passwd, HasReadOnly: true,
	})
	if _, err := conn.Write(connect); err != nil {
		return err
	}
	body, err := wire.ReadFrame(conn, nil, maxFrame)
	if err != nil {
		return fmt.Errorf("reading ConnectResponse: %w", err)
	}
	resp, err := wire.DecodeConnectResponse(body)
	if err != nil {
		return err
	}
	if resp.SessionID == 0 || resp.TimeoutMs == 0 {
		return ErrSessionGone
	}
	if _, err := conn.Write(wire.AppendRequest(nil, closeXid, wire.OpCloseSession, nil)); err != nil {
		return err
	}
	if body, err = wire.ReadFrame(conn, nil, maxFrame); err != nil {
		return fmt.Errorf("reading closeSession reply: %w", err)
	}
	h, err := wire.DecodeReplyHeader(body)
	switch {
	case err != nil:
		return err
	case h.Xid != closeXid:
		return fmt.Errorf("%w: closeSession reply has xid %d", ErrBadReply, h.Xid)
	case h.Err != 0:
		return fmt.Errorf("%w: closeSession: code %d", ErrServerError, h.Err)
	}
	return nil
}
