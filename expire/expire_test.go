package expire_test

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

	"github.com/zksim/zksim/expire"
)

// The byte layouts below are written out by hand from zookeeper.jute
// (ConnectRequest, ConnectResponse, RequestHeader, ReplyHeader), so that
// what Kill sends and Capture reads is checked against the spec, not
// against package wire.

var testPasswd = unhex("a0a1a2a3a4a5a6a7a8a9aaabacadaeaf")

func testCred(addr string) expire.Credentials {
	return expire.Credentials{Addr: addr, SessionID: 0x0102030405060708, Timeout: 4 * time.Second, Passwd: testPasswd}
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

// fakeServer serves one connection with handle on a loopback port; wait
// closes the listener and returns handle's error.
func fakeServer(t *testing.T, handle func(net.Conn) error) (addr string, wait func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			errc <- err
			return
		}
		defer c.Close()
		errc <- handle(c)
	}()
	var result error
	done := false
	wait = func() error {
		if !done {
			done = true
			ln.Close()
			result = <-errc
		}
		return result
	}
	t.Cleanup(func() { _ = wait() })
	return ln.Addr().String(), wait
}

// expect reads len(want) bytes from c and fails unless they equal want.
func expect(c net.Conn, want []byte) error {
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c, got); err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		return errors.New("unexpected bytes: got " + hex.EncodeToString(got) + " want " + hex.EncodeToString(want))
	}
	return nil
}

// closingServer answers the connect with connectResponse and closeSession
// with reply.
func closingServer(reply []byte) func(net.Conn) error {
	return func(c net.Conn) error {
		if err := expect(c, wantConnectRequest); err != nil {
			return err
		}
		if _, err := c.Write(connectResponse); err != nil {
			return err
		}
		if err := expect(c, wantCloseSession); err != nil {
			return err
		}
		_, err := c.Write(reply)
		return err
	}
}

func TestKill_Wire(t *testing.T) {
	addr, wait := fakeServer(t, closingServer(closeReply))
	if err := expire.Kill(context.Background(), addr, testCred(addr)); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	if err := wait(); err != nil {
		t.Fatalf("server side: %v", err)
	}
}

func TestKill_Gone(t *testing.T) {
	addr, wait := fakeServer(t, func(c net.Conn) error {
		if err := expect(c, wantConnectRequest); err != nil {
			return err
		}
		_, err := c.Write(refusedResponse)
		return err
	})
	err := expire.Kill(context.Background(), addr, testCred(addr))
	if !errors.Is(err, expire.ErrSessionGone) {
		t.Fatalf("Kill = %v, want ErrSessionGone", err)
	}
	if err := wait(); err != nil {
		t.Fatalf("server side: %v", err)
	}
}

func TestKill_ServerError(t *testing.T) {
	// -118: SessionMoved
	addr, wait := fakeServer(t, closingServer(unhex("00000010 00000001 0000000000000000 ffffff8a")))
	err := expire.Kill(context.Background(), addr, testCred(addr))
	if !errors.Is(err, expire.ErrServerError) {
		t.Fatalf("Kill = %v, want ErrServerError", err)
	}
	if err := wait(); err != nil {
		t.Fatal(err)
	}
}

func TestKill_WrongXid(t *testing.T) {
	addr, wait := fakeServer(t, closingServer(unhex("00000010 00000007 000000000000002a 00000000")))
	err := expire.Kill(context.Background(), addr, testCred(addr))
	if !errors.Is(err, expire.ErrBadReply) {
		t.Fatalf("Kill = %v, want ErrBadReply", err)
	}
	if err := wait(); err != nil {
		t.Fatal(err)
	}
}

func TestKill_ContextDeadline(t *testing.T) {
	release := make(chan struct{})
	addr, _ := fakeServer(t, func(c net.Conn) error {
		<-release // never answers until the test is done
		return nil
	})
	defer close(release)
	// The deadline passes while Kill waits for the ConnectResponse.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := expire.Kill(ctx, addr, testCred(addr)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Kill = %v, want context.DeadlineExceeded", err)
	}
}

// TestCapture_Dial checks that the capture passes the server's bytes
// through unchanged, however they are split, and records the session.
func TestCapture_Dial(t *testing.T) {
	for _, tc := range []struct {
		name     string
		response []byte
	}{
		{"readOnly", connectResponse},
		{"noReadOnly", connectResponseNoRO},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stream := append(bytes.Clone(tc.response), closeReply...)
			want := bytes.Clone(stream)
			addr, wait := fakeServer(t, func(c net.Conn) error {
				for _, n := range []int{3, 10, 1, len(stream) - 14} {
					if _, err := c.Write(stream[:n]); err != nil {
						return err
					}
					stream = stream[n:]
				}
				return nil
			})
			var capture expire.Capture
			conn, err := capture.Dial("tcp", addr, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			got, err := io.ReadAll(conn)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("client read %x, want %x", got, want)
			}
			if err := wait(); err != nil {
				t.Fatal(err)
			}
			cred, ok := capture.Credentials(0x0102030405060708)
			if !ok {
				t.Fatal("session not captured")
			}
			wantCred := testCred(addr)
			if cred.Addr != wantCred.Addr || cred.SessionID != wantCred.SessionID || cred.Timeout != wantCred.Timeout || !bytes.Equal(cred.Passwd, wantCred.Passwd) {
				t.Fatalf("Credentials = %+v, want %+v", cred, wantCred)
			}
		})
	}
}

func TestCapture_Refused(t *testing.T) {
	addr, _ := fakeServer(t, func(c net.Conn) error {
		_, err := c.Write(refusedResponse)
		return err
	})
	var capture expire.Capture
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
	if err := capture.Kill(context.Background(), 0x0102030405060708); !errors.Is(err, expire.ErrUnknownSession) {
		t.Fatalf("Kill of an unseen session = %v, want ErrUnknownSession", err)
	}
}
