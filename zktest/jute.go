package zktest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/zksim/zksim/fakezk/wire"
)

// Wire layouts, from ZooKeeper's zookeeper-jute/src/main/resources/
// zookeeper.jute. Every message is a frame: a big-endian int32 length, then
// that many bytes. A jute buffer is an int32 length then the bytes; a
// boolean is one byte.
//
//	ConnectRequest:  int protocolVersion, long lastZxidSeen, int timeOut,
//	                 long sessionId, buffer passwd, [boolean readOnly]
//	ConnectResponse: int protocolVersion, int timeOut, long sessionId,
//	                 buffer passwd, [boolean readOnly]
//	RequestHeader:   int xid, int type
//	ReplyHeader:     int xid, long zxid, int err
//
// The trailing readOnly is optional on the wire: the server reads it if the
// request carries it and then answers with one (go-zookeeper sends none).
const (
	closeXid int32 = 1
	// maxFrame bounds the frames this package reads: a ConnectResponse is
	// 37 bytes with a 16-byte password; anything near this is not one.
	maxFrame = 1 << 16
)

// connectResponse is a decoded ConnectResponse. A server that refuses the
// presented session (expired, closed or unknown) answers with a zero
// timeout, a zero session id and a zeroed password.
type connectResponse struct {
	timeout   time.Duration
	sessionID int64
	passwd    []byte
}

// connectRequest is the ConnectRequest that resumes cred's session:
// lastZxidSeen 0 is never ahead of the server; the readOnly flag is sent.
func connectRequest(cred Credentials) []byte {
	return wire.AppendConnect(nil, wire.ConnectRequest{
		TimeoutMs: int32(cred.Timeout / time.Millisecond), SessionID: cred.SessionID,
		Passwd: append([]byte{}, cred.Passwd...), HasReadOnly: true,
	})
}

func closeSessionRequest() []byte {
	return wire.AppendRequest(nil, closeXid, wire.OpCloseSession, nil)
}

// frameLen returns the length announced by the 4-byte header at b's start.
func frameLen(b []byte) (int, error) {
	n := int32(binary.BigEndian.Uint32(b))
	if n < 0 || n > maxFrame {
		return 0, fmt.Errorf("%w: frame length %d", ErrBadFrame, n)
	}
	return int(n), nil
}

// readFrame reads one frame and returns its body.
func readFrame(r io.Reader) ([]byte, error) {
	body, err := wire.ReadFrame(r, nil, maxFrame)
	if errors.Is(err, wire.ErrFrameSize) {
		err = fmt.Errorf("%w: %w", ErrBadFrame, err)
	}
	return body, err
}

func parseConnectResponse(body []byte) (connectResponse, error) {
	const fixed = 4 + 4 + 8 + 4
	if len(body) < fixed {
		return connectResponse{}, fmt.Errorf("%w: ConnectResponse of %d bytes", ErrBadFrame, len(body))
	}
	r := connectResponse{
		timeout:   time.Duration(int32(binary.BigEndian.Uint32(body[4:]))) * time.Millisecond,
		sessionID: int64(binary.BigEndian.Uint64(body[8:])),
	}
	n := int32(binary.BigEndian.Uint32(body[16:]))
	rest := body[fixed:]
	// -1 is jute's null buffer; anything else must fit, leaving at most the
	// optional readOnly byte.
	switch {
	case n == -1:
	case n < 0 || int(n) > len(rest) || len(rest)-int(n) > 1:
		return connectResponse{}, fmt.Errorf("%w: ConnectResponse password length %d in %d bytes", ErrBadFrame, n, len(body))
	default:
		r.passwd = append([]byte(nil), rest[:n]...)
	}
	return r, nil
}

// parseReplyHeader returns the xid and error code of a reply.
func parseReplyHeader(body []byte) (xid, code int32, err error) {
	if len(body) < 16 {
		return 0, 0, fmt.Errorf("%w: reply header of %d bytes", ErrBadFrame, len(body))
	}
	return int32(binary.BigEndian.Uint32(body[0:])), int32(binary.BigEndian.Uint32(body[12:])), nil
}
