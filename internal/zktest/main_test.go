package zktest_test

import (
	"encoding/hex"
	"errors"
	"io"
	"net"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if any test leaves a goroutine behind: the proxy's,
// the fake servers' below, or a go-zookeeper client's.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fakeServer accepts one connection on loopback and runs handle on it. The
// test gets handle's error back through the returned function, which also
// closes the listener; no t.Fatal happens off the test goroutine.
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
	if string(got) != string(want) {
		return errors.New("unexpected bytes: got " + hex.EncodeToString(got) + " want " + hex.EncodeToString(want))
	}
	return nil
}

// echoServer echoes every connection until closed; the returned function
// stops it and waits for its goroutines.
func echoServer(t *testing.T) (addr string, stop func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		conns  []net.Conn
		closed bool
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			if closed {
				mu.Unlock()
				c.Close()
				return
			}
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			ln.Close()
			mu.Lock()
			closed = true
			for _, c := range conns {
				c.Close()
			}
			mu.Unlock()
			wg.Wait()
		})
	}
	t.Cleanup(stop)
	return ln.Addr().String(), stop
}
