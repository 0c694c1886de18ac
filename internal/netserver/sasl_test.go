package netserver_test

import (
	"testing"
	"time"

	"github.com/zksim/zksim/internal/wire"
	"github.com/zksim/zksim/internal/zktest"
)

// TestSASL_DoesNotRenewSession: auth and sasl packets do not keep a
// session alive. ZooKeeperServer.processPacket answers them itself and
// only requests it submits touch the session (submitRequestNow), so a
// client that sends nothing else sees its session expire and its
// connection close after the session timeout. kazoo's SASL client on a
// server without SASL configured is such a client: every sasl packet gets
// an empty token back, it answers with another, and only the expiry ends
// the loop (as AuthFailed, "Connection dropped in SASL"); on a fake that
// counted these packets as life it never ended (issue 11). Checked on the
// real server when one is configured.
func TestSASL_DoesNotRenewSession(t *testing.T) {
	packets := map[string]func(xid int32) []byte{
		"sasl": func(xid int32) []byte { return req(xid, wire.OpSASL, jb{}.str("")) },
		"auth": func(int32) []byte { return req(-4, wire.OpAuth, jb{}.i32(0).str("digest").str("u:p")) },
	}
	for _, name := range []string{"sasl", "auth"} {
		t.Run(name+"/fake", func(t *testing.T) {
			_, addr := newFake(t, serverConfig())
			testSilentButForPackets(t, addr, packets[name])
		})
		t.Run(name+"/real", func(t *testing.T) { testSilentButForPackets(t, zktest.Standalone(t)[0], packets[name]) })
	}
}

// testSilentButForPackets sends only packet, every 200 ms, on a session
// of 1 s (2 ticks of 500 ms): the server must close the connection within
// a few timeouts, and the session must be gone.
func testSilentButForPackets(t *testing.T, addr string, packet func(xid int32) []byte) {
	const timeout = 1000
	c := dialRaw(t, addr)
	sid, pw, got := c.handshake(timeout, 0, nil)
	if got != timeout {
		t.Fatalf("session timeout %d, want %d", got, timeout)
	}
	start := time.Now()
	for xid := int32(1); ; xid++ {
		if time.Since(start) > 6*timeout*time.Millisecond {
			t.Fatalf("connection still open %v after the last request that is not auth or sasl", time.Since(start).Round(time.Millisecond))
		}
		c.write(packet(xid))
		if !repliesUntilClosed(c, 200*time.Millisecond) {
			break
		}
	}
	t.Logf("closed %v after the handshake", time.Since(start).Round(10*time.Millisecond))
	if s := survives(t, addr, sid, pw); s != "session gone" {
		t.Errorf("after the close: %s, want session gone", s)
	}
}

// repliesUntilClosed reads frames for d: false once the server closes.
func repliesUntilClosed(c *rawConn, d time.Duration) bool {
	end := time.Now().Add(d)
	for {
		left := time.Until(end)
		if left <= 0 {
			return true
		}
		if _, err := c.frame(left); err != nil {
			return err == errQuiet
		}
	}
}
