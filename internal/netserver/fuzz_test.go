package netserver_test

import (
	"encoding/binary"
	"errors"
	"io"
	"maps"
	"net"
	"slices"
	"testing"

	"github.com/zksim/zksim/internal/wire"
)

// FuzzServer_BytesAfterHandshake sends arbitrary bytes on an established
// session, then closes its side. Whatever the bytes, the server answers
// with whole reply frames only, closes the connection once the client has
// (no read is left hanging), keeps serving new sessions, and ends every
// goroutine when it is closed. The seeds are the raw cases' bytes.
func FuzzServer_BytesAfterHandshake(f *testing.F) {
	checkLeaks(f)
	_, addr := newFake(f, serverConfig())
	for _, tc := range rawCases() {
		if tc.send != nil {
			f.Add(tc.send(env{root: "/f", z0: 1, sid: 1, pw: make([]byte, 16)}))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := dialRaw(t, addr)
		c.handshake(4000, 0, nil)
		c.write(data)
		c.nc.(*net.TCPConn).CloseWrite()
		sent := opsByXid(data)
		for {
			b, err := c.frame(replyWait)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("after %x: %v, want whole frames then the connection closed", data, err)
			}
			if len(b) < 16 {
				t.Fatalf("after %x: a reply of %d bytes, shorter than a ReplyHeader", data, len(b))
			}
			xid := int32(binary.BigEndian.Uint32(b))
			if xid == 0 && slices.Contains(slices.Collect(maps.Values(sent)), wire.OpCreateSession) {
				continue // a second ConnectResponse, whose first field is 0
			}
			if _, ok := sent[xid]; !ok && xid != wire.XidWatch && xid != wire.XidPing {
				t.Fatalf("after %x: a reply with xid %d, which no request had", data, xid)
			}
		}
		serving(t, addr)
	})
}
