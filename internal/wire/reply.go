package wire

// The client side of the decoders: what a client reads from the server.
// A tool that speaks to a server directly (package expire, which takes
// over a session to close it) needs no more than these two records.

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
	r := &reader{b: frame}
	h := ReplyHeader{Xid: r.int32("xid"), Zxid: r.int64("zxid"), Err: r.int32("err")}
	return h, r.err
}
