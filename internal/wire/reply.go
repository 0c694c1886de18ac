package wire

import "github.com/zksim/zksim/zkapi"

// The client side of the decoders: what a client reads from the server.
// A tool that speaks to a server directly (package expire, which takes
// over a session to close it, and zkapi/gozk's shim for the requests
// go-zookeeper cannot send) needs no more than these records.

// ReplyHeader heads every reply and notification a server sends after
// the ConnectResponse: the xid of the request it answers (XidWatch for a
// notification, XidPing for a ping), the zxid the server has reached, and
// the result code (0 for success, else a KeeperException.Code).
type ReplyHeader struct {
	Xid  int32
	Zxid int64
	Err  int32
}

// DecodeConnectResponse decodes a ConnectResponse frame body, as a
// client reads it: the readOnly flag is read if the server sent one (it
// does only to clients that sent one), and bytes after it are ignored, as
// DecodeConnect ignores them. A null password decodes as nil. A refused
// session decodes without error: its TimeoutMs and SessionID are 0.
func DecodeConnectResponse(frame []byte) (ConnectResponse, error) {
	r := &reader{b: frame}
	c := ConnectResponse{
		ProtocolVersion: r.int32("protocolVersion"),
		TimeoutMs:       r.int32("timeOut"),
		SessionID:       r.int64("sessionId"),
		Passwd:          r.buffer("passwd"),
	}
	if r.err == nil && r.off < len(frame) {
		c.ReadOnly = r.bool("readOnly")
	}
	return c, r.err
}

// DecodeReplyHeader decodes the ReplyHeader at the start of a reply frame
// body; the reply's own record, if any, follows it.
func DecodeReplyHeader(frame []byte) (ReplyHeader, error) {
	h, _, err := DecodeReply(frame)
	return h, err
}

// DecodeReply decodes the ReplyHeader at the start of a reply frame body
// and returns the bytes of the record after it, for the decoder of the
// request's reply (DecodeEvent for a notification, XidWatch).
func DecodeReply(frame []byte) (ReplyHeader, []byte, error) {
	r := &reader{b: frame}
	h := ReplyHeader{Xid: r.int32("xid"), Zxid: r.int64("zxid"), Err: r.int32("err")}
	if r.err != nil {
		return h, nil, r.err
	}
	return h, frame[r.off:], nil
}

// DecodeEvent decodes a WatcherEvent (type, state, path), the record a
// notification carries after its ReplyHeader. The keeper state is not
// kept: on a live connection it is always SyncConnected. A null path
// decodes as "".
func DecodeEvent(rec []byte) (zkapi.Event, error) {
	r := &reader{b: rec}
	typ := r.int32("event type")
	r.int32("event state")
	ev := zkapi.Event{Type: zkapi.EventType(typ), Path: r.string("event path")}
	return ev, r.err
}
