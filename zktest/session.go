package zktest

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"
)

// Credentials are what a client must present to take over a session: the
// server address it last connected to, the session id, the negotiated
// timeout and the session password.
type Credentials struct {
	Addr      string
	SessionID int64
	Timeout   time.Duration
	Passwd    []byte
}

// SessionCapture records the credentials of every session a client
// establishes through its Dial. The zero value is ready to use and safe for
// concurrent use; one capture may serve several clients.
type SessionCapture struct {
	mu       sync.Mutex
	sessions map[int64]Credentials
}

// Dial connects like net.DialTimeout and watches the first frame the server
// sends, the ConnectResponse; every byte still reaches the caller unchanged.
// Its signature is go-zookeeper's zk.Dialer: pass zk.WithDialer(c.Dial).
func (c *SessionCapture) Dial(network, address string, timeout time.Duration) (net.Conn, error) {
	conn, err := net.DialTimeout(network, address, timeout)
	if err != nil {
		return nil, err
	}
	return &capturedConn{Conn: conn, capture: c, addr: address}, nil
}

// Credentials returns the latest credentials seen for sessionID.
func (c *SessionCapture) Credentials(sessionID int64) (Credentials, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cred, ok := c.sessions[sessionID]
	if ok {
		cred.Passwd = append([]byte(nil), cred.Passwd...)
	}
	return cred, ok
}

// Kill expires sessionID on the server it last connected to; see KillSession.
func (c *SessionCapture) Kill(ctx context.Context, sessionID int64) error {
	cred, ok := c.Credentials(sessionID)
	if !ok {
		return fmt.Errorf("%w: 0x%x", ErrUnknownSession, sessionID)
	}
	return KillSession(ctx, cred.Addr, cred)
}

func (c *SessionCapture) record(cred Credentials) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sessions == nil {
		c.sessions = make(map[int64]Credentials)
	}
	c.sessions[cred.SessionID] = cred
}

// capturedConn copies what the server sends until it holds the first frame,
// then stops looking. A refused session (id 0) is not recorded.
type capturedConn struct {
	net.Conn
	capture *SessionCapture
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
	if len(cc.buf) < 4 {
		return
	}
	n, err := frameLen(cc.buf)
	if err != nil {
		cc.done, cc.buf = true, nil
		return
	}
	if len(cc.buf) < 4+n {
		return
	}
	resp, err := parseConnectResponse(cc.buf[4 : 4+n])
	cc.done, cc.buf = true, nil
	if err == nil && resp.sessionID != 0 && resp.timeout > 0 {
		cc.capture.record(Credentials{Addr: cc.addr, SessionID: resp.sessionID, Timeout: resp.timeout, Passwd: resp.passwd})
	}
}

// KillSession closes a live session as if its owner had: it connects to addr
// presenting cred, which moves the session onto this connection (the server
// drops the owner's connection), then sends closeSession and waits for the
// reply, by which time the session's ephemerals are gone and their watches
// have fired. The owner learns of the expiry when it reconnects. If the
// server no longer knows the session, the error wraps ErrSessionGone.
//
// The technique is Curator's KillSession test utility.
func KillSession(ctx context.Context, addr string, cred Credentials) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("zktest: kill session 0x%x at %s: %w", cred.SessionID, addr, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if err := killOn(conn, cred); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return fmt.Errorf("zktest: kill session 0x%x at %s: %w", cred.SessionID, addr, err)
	}
	return nil
}

func killOn(conn net.Conn, cred Credentials) error {
	if _, err := conn.Write(connectRequest(cred)); err != nil {
		return err
	}
	body, err := readFrame(conn)
	if err != nil {
		return fmt.Errorf("reading ConnectResponse: %w", err)
	}
	resp, err := parseConnectResponse(body)
	if err != nil {
		return err
	}
	if resp.sessionID == 0 || resp.timeout == 0 {
		return ErrSessionGone
	}
	if _, err := conn.Write(closeSessionRequest()); err != nil {
		return err
	}
	if body, err = readFrame(conn); err != nil {
		return fmt.Errorf("reading closeSession reply: %w", err)
	}
	xid, code, err := parseReplyHeader(body)
	switch {
	case err != nil:
		return err
	case xid != closeXid:
		return fmt.Errorf("%w: closeSession reply has xid %d", ErrBadFrame, xid)
	case code != 0:
		return fmt.Errorf("%w: closeSession: code %d", ErrServerError, code)
	}
	return nil
}
