package zktest_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/zksim/zksim/zktest"
)

// The byte layouts below are written out by hand from zookeeper.jute
// (ConnectRequest, ConnectResponse, RequestHeader, ReplyHeader), so that
// the encoder is checked against the spec, not against itself.

var testPasswd = unhex("a0a1a2a3a4a5a6a7a8a9aaabacadaeaf")

func testCred(addr string) zktest.Credentials {
	return zktest.Credentials{Addr: addr, SessionID: 0x0102030405060708, Timeout: 4 * time.Second, Passwd: testPasswd}
}

func unhex(s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		panic("bad hex literal in test: " + s)
	}
	return b
}

var (
	// len 45 | protocolVersion 0 | lastZxidSeen 0 | timeOut 4000 |
	// sessionId | passwd (len 16) | readOnly false
	wantConnectRequest = unhex("0000002d 00000000 0000000000000000 00000fa0 0102030405060708 00000010 a0a1a2a3a4a5a6a7a8a9aaabacadaeaf 00")
	// len 8 | xid 1 | type -11 (closeSession)
	wantCloseSession = unhex("00000008 00000001 fffffff5")
	// len 37 | protocolVersion 0 | timeOut 4000 | sessionId | passwd | readOnly
	connectResponse = unhex("00000025 00000000 00000fa0 0102030405060708 00000010 a0a1a2a3a4a5a6a7a8a9aaabacadaeaf 00")
	// the same without the trailing readOnly, as sent to go-zookeeper
	connectResponseNoRO = unhex("00000024 00000000 00000fa0 0102030405060708 00000010 a0a1a2a3a4a5a6a7a8a9aaabacadaeaf")
	// what a server answers for an expired session: zero timeout, id and passwd
	refusedResponse = unhex("00000025 00000000 00000000 0000000000000000 00000010 00000000000000000000000000000000 00")
	// len 16 | xid 1 | zxid 0x2a | err 0
	closeReply = unhex("00000010 00000001 000000000000002a 00000000")
)

func TestKillSession_Wire(t *testing.T) {
	addr, wait := fakeServer(t, func(c net.Conn) error {
		if err := expect(c, wantConnectRequest); err != nil {
			return err
		}
		if _, err := c.Write(connectResponse); err != nil {
			return err
		}
		if err := expect(c, wantCloseSession); err != nil {
			return err
		}
		_, err := c.Write(closeReply)
		return err
	})
	if err := zktest.KillSession(context.Background(), addr, testCred(addr)); err != nil {
		t.Fatalf("KillSession: %v", err)
	}
	if err := wait(); err != nil {
		t.Fatalf("server side: %v", err)
	}
}

func TestKillSession_Gone(t *testing.T) {
	addr, wait := fakeServer(t, func(c net.Conn) error {
		if err := expect(c, wantConnectRequest); err != nil {
			return err
		}
		_, err := c.Write(refusedResponse)
		return err
	})
	err := zktest.KillSession(context.Background(), addr, testCred(addr))
	if !errors.Is(err, zktest.ErrSessionGone) {
		t.Fatalf("KillSession = %v, want ErrSessionGone", err)
	}
	if err := wait(); err != nil {
		t.Fatalf("server side: %v", err)
	}
}

func TestKillSession_ServerError(t *testing.T) {
	addr, wait := fakeServer(t, func(c net.Conn) error {
		if err := expect(c, wantConnectRequest); err != nil {
			return err
		}
		if _, err := c.Write(connectResponse); err != nil {
			return err
		}
		if err := expect(c, wantCloseSession); err != nil {
			return err
		}
		_, err := c.Write(unhex("00000010 00000001 0000000000000000 ffffff8e")) // -114: SessionMoved
		return err
	})
	err := zktest.KillSession(context.Background(), addr, testCred(addr))
	if !errors.Is(err, zktest.ErrServerError) {
		t.Fatalf("KillSession = %v, want ErrServerError", err)
	}
	if err := wait(); err != nil {
		t.Fatal(err)
	}
}

func TestKillSession_ContextDeadline(t *testing.T) {
	release := make(chan struct{})
	addr, _ := fakeServer(t, func(c net.Conn) error {
		<-release // never answers until the test is done
		return nil
	})
	defer close(release)
	// The deadline passes while KillSession waits for the ConnectResponse.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := zktest.KillSession(ctx, addr, testCred(addr)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("KillSession = %v, want context.DeadlineExceeded", err)
	}
}

// TestSessionCapture_Dial checks that the capture passes the server's bytes
// through unchanged, however they are split, and records the session.
func TestSessionCapture_Dial(t *testing.T) {
	for _, tc := range []struct {
		name     string
		response []byte
	}{
		{"readOnly", connectResponse},
		{"noReadOnly", connectResponseNoRO},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stream := append(append([]byte(nil), tc.response...), closeReply...)
			addr, wait := fakeServer(t, func(c net.Conn) error {
				for _, n := range []int{3, 10, 1, len(stream) - 14} {
					if _, err := c.Write(stream[:n]); err != nil {
						return err
					}
					stream = stream[n:]
				}
				return nil
			})
			var capture zktest.SessionCapture
			conn, err := capture.Dial("tcp", addr, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			got, err := io.ReadAll(conn)
			if err != nil {
				t.Fatal(err)
			}
			if want := append(append([]byte(nil), tc.response...), closeReply...); !bytes.Equal(got, want) {
				t.Fatalf("client read %x, want %x", got, want)
			}
			if err := wait(); err != nil {
				t.Fatal(err)
			}
			cred, ok := capture.Credentials(0x0102030405060708)
			if !ok {
				t.Fatal("session not captured")
			}
			want := testCred(addr)
			if cred.Addr != want.Addr || cred.SessionID != want.SessionID || cred.Timeout != want.Timeout || !bytes.Equal(cred.Passwd, want.Passwd) {
				t.Fatalf("Credentials = %+v, want %+v", cred, want)
			}
		})
	}
}

func TestSessionCapture_Refused(t *testing.T) {
	addr, _ := fakeServer(t, func(c net.Conn) error {
		_, err := c.Write(refusedResponse)
		return err
	})
	var capture zktest.SessionCapture
	conn, err := capture.Dial("tcp", addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.ReadAll(conn); err != nil {
		t.Fatal(err)
	}
	if cred, ok := capture.Credentials(0); ok {
		t.Fatalf("refused session recorded: %+v", cred)
	}
	if err := capture.Kill(context.Background(), 0x0102030405060708); !errors.Is(err, zktest.ErrUnknownSession) {
		t.Fatalf("Kill of an unseen session = %v, want ErrUnknownSession", err)
	}
}

// srvrOutput is what Debian's ZooKeeper 3.8.0 prints for srvr.
const srvrOutput = `Zookeeper version: 3.8.0-${mvngit.commit.id}, built on 2024-12-29 17:54 UTC
Latency min/avg/max: 0/0.0/0
Received: 6
Sent: 5
Connections: 1
Outstanding: 0
Zxid: 0x100000002
Mode: follower
Node count: 5
`

func TestSrvr_Parse(t *testing.T) {
	addr, _ := fakeServer(t, func(c net.Conn) error {
		if err := expect(c, []byte("srvr")); err != nil {
			return err
		}
		_, err := io.WriteString(c, srvrOutput)
		return err
	})
	fields, err := zktest.Srvr(addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"Mode":                "follower",
		"Zxid":                "0x100000002",
		"Latency min/avg/max": "0/0.0/0",
		"Zookeeper version":   "3.8.0-${mvngit.commit.id}, built on 2024-12-29 17:54 UTC",
	} {
		if fields[k] != want {
			t.Errorf("%s = %q, want %q", k, fields[k], want)
		}
	}
}

func TestSrvr_NotServing(t *testing.T) {
	addr, _ := fakeServer(t, func(c net.Conn) error {
		if err := expect(c, []byte("srvr")); err != nil {
			return err
		}
		_, err := io.WriteString(c, "This ZooKeeper instance is not currently serving requests\n")
		return err
	})
	if _, err := zktest.Srvr(addr, time.Second); !errors.Is(err, zktest.ErrNotServing) {
		t.Fatalf("Srvr = %v, want ErrNotServing", err)
	}
}
