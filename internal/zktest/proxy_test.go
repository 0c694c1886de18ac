package zktest_test

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/zktest"
	"go.uber.org/goleak"
)

func newProxy(t *testing.T, target string) *zktest.Proxy {
	t.Helper()
	p, err := zktest.NewProxy(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// roundTrip writes msg and expects it echoed within a second.
func roundTrip(t *testing.T, c net.Conn, msg string) {
	t.Helper()
	if _, err := io.WriteString(c, msg); err != nil {
		t.Fatal(err)
	}
	expectRead(t, c, msg)
}

func expectRead(t *testing.T, c net.Conn, msg string) {
	t.Helper()
	if err := c.SetReadDeadline(time.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatalf("reading %q: %v", msg, err)
	}
	if string(got) != msg {
		t.Fatalf("read %q, want %q", got, msg)
	}
}

func TestProxy_StallResume(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	target, stop := echoServer(t)
	p := newProxy(t, target)
	c := dial(t, p.Addr())
	roundTrip(t, c, "before")

	p.Stall()
	if _, err := io.WriteString(c, "held"); err != nil {
		t.Fatal(err)
	}
	// Nothing may come back while stalled; the socket stays open, so the
	// read ends by its deadline, not by EOF.
	if err := c.SetReadDeadline(time.Now().Add(200 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Read(make([]byte, 8)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read while stalled = %d, %v; want a deadline error", n, err)
	}
	late := dial(t, p.Addr()) // accepted while stalled, held too
	if _, err := io.WriteString(late, "late"); err != nil {
		t.Fatal(err)
	}

	p.Resume()
	expectRead(t, c, "held")
	expectRead(t, late, "late")
	roundTrip(t, c, "after")

	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	stop()
}

func TestProxy_Disconnect(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	target, stop := echoServer(t)
	p := newProxy(t, target)
	c := dial(t, p.Addr())
	roundTrip(t, c, "x")

	p.Disconnect()
	if err := c.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("read after Disconnect = %v, want EOF", err)
	}
	roundTrip(t, dial(t, p.Addr()), "new connections still work")

	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	stop()
}

func TestProxy_DisconnectWhileStalled(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	target, stop := echoServer(t)
	p := newProxy(t, target)
	c := dial(t, p.Addr())
	roundTrip(t, c, "x")
	p.Stall()
	p.Disconnect()
	if err := c.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("read after Disconnect = %v, want EOF", err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	stop()
}

func TestProxy_Close(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	target, stop := echoServer(t)
	p := newProxy(t, target)
	c := dial(t, p.Addr())
	roundTrip(t, c, "x")
	p.Stall() // Close must also end goroutines held at the gate
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
	if _, err := net.DialTimeout("tcp", p.Addr(), time.Second); err == nil {
		t.Fatal("proxy still accepts after Close")
	}
	stop()
}
