package main

import (
	"net"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// writeUntilFails writes to c, whose peer has closed, until a write
// fails (the first ones may still be taken before the peer's reset).
func writeUntilFails(t *testing.T, c net.Conn) error {
	t.Helper()
	for range 100 {
		if _, err := c.Write([]byte("ping")); err != nil {
			return err
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("writes to a closed peer kept succeeding")
	return nil
}

// sigpipes dials ln with dial, has the server end close at once, writes
// until a write fails, and reports whether a SIGPIPE reached sigs.
func sigpipes(t *testing.T, ln net.Listener, sigs <-chan os.Signal, dial func(network, addr string, timeout time.Duration) (net.Conn, error)) bool {
	t.Helper()
	accepted := make(chan net.Conn, 1)
	go func() {
		s, err := ln.Accept()
		if err == nil {
			accepted <- s
		}
	}()
	c, err := dial("tcp", ln.Addr().String(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	(<-accepted).Close()
	writeUntilFails(t, c)
	select {
	case <-sigs:
		return true
	case <-time.After(300 * time.Millisecond): // a bound on the signal's delivery, not a speed goal
		return false
	}
}

// zklock catches SIGPIPE (to pass it on to its command), so a write to
// a socket whose peer has gone would raise one it did not send: its
// ZooKeeper connections write with MSG_NOSIGNAL and raise none. A plain
// connection, the control, does.
func TestDialNoSigpipe_WriteToGonePeerRaisesNoSIGPIPE(t *testing.T) {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGPIPE)
	defer signal.Stop(sigs)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if !sigpipes(t, ln, sigs, net.DialTimeout) {
		t.Fatal("control: a plain connection's failed write raised no SIGPIPE; the test cannot tell")
	}
	if sigpipes(t, ln, sigs, dialNoSigpipe) {
		t.Error("dialNoSigpipe's connection raised SIGPIPE on a write to a gone peer")
	}
}
