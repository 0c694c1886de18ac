package netserver_test

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
)

// failingListener fails its first n Accepts as accept(2) does in a
// process out of file descriptors, then accepts from the listener it
// wraps; each failure sends a token on failed, if there is room.
type failingListener struct {
	net.Listener
	left   atomic.Int64
	failed chan struct{}
}

func newFailingListener(t *testing.T, n int64) *failingListener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fl := &failingListener{Listener: l, failed: make(chan struct{}, 64)}
	fl.left.Store(n)
	return fl
}

func (l *failingListener) Accept() (net.Conn, error) {
	if l.left.Add(-1) < 0 {
		return l.Listener.Accept()
	}
	select {
	case l.failed <- struct{}{}:
	default:
	}
	return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.Addr(), Err: os.NewSyscallError("accept4", syscall.EMFILE)}
}

// logLines collects a server's log lines.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logLines) matching(substr string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range l.lines {
		if strings.Contains(line, substr) {
			out = append(out, line)
		}
	}
	return out
}

// serveOn serves srv's leader on l in the background; the returned
// channel gives Serve's error.
func serveOn(srv *netserver.Server, l net.Listener) <-chan error {
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	return done
}

// TestServer_AcceptRetriesTransientErrors: Accept failing with EMFILE (a
// process out of file descriptors) does not end the accept loop: the
// server backs off, accepts again and serves, and says so once per
// streak. The real server's accept thread keeps accepting too.
func TestServer_AcceptRetriesTransientErrors(t *testing.T) {
	checkLeaks(t)
	var logs logLines
	srv, err := netserver.New(netserver.Config{Machine: machine.Config{TickMillis: 500}, Logf: logs.logf})
	if err != nil {
		t.Fatal(err)
	}
	l := newFailingListener(t, 4)
	done := serveOn(srv, l)
	t.Cleanup(func() {
		srv.Close()
		if err := <-done; !errors.Is(err, netserver.ErrClosed) {
			t.Errorf("Serve after Close: %v, want ErrClosed", err)
		}
	})
	serving(t, l.Addr().String())
	if got := logs.matching("accept failed"); len(got) != 1 || !strings.Contains(got[0], "too many open files") {
		t.Errorf("logged %q, want one line for the streak naming the error", got)
	}
	if got := logs.matching("accepting again after 4 failed accepts"); len(got) != 1 {
		t.Errorf("logged %q, want one line when the streak ends", logs.matching(""))
	}
}

// TestServer_CloseEndsAcceptBackoff: Close ends an accept loop that is
// backing off, and Serve returns ErrClosed.
func TestServer_CloseEndsAcceptBackoff(t *testing.T) {
	checkLeaks(t)
	srv, err := netserver.New(netserver.Config{Machine: machine.Config{TickMillis: 500}})
	if err != nil {
		t.Fatal(err)
	}
	l := newFailingListener(t, 1<<62)
	done := serveOn(srv, l)
	for range 3 {
		<-l.failed
	}
	srv.Close()
	if err := <-done; !errors.Is(err, netserver.ErrClosed) {
		t.Errorf("Serve after Close: %v, want ErrClosed", err)
	}
}

// TestServer_ServeEndsWhenListenerClosed: a listener closed by its owner
// is not retried: Serve returns its error.
func TestServer_ServeEndsWhenListenerClosed(t *testing.T) {
	checkLeaks(t)
	srv, err := netserver.New(netserver.Config{Machine: machine.Config{TickMillis: 500}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := serveOn(srv, l)
	l.Close()
	if err := <-done; !errors.Is(err, net.ErrClosed) {
		t.Errorf("Serve on a listener closed under it: %v, want net.ErrClosed", err)
	}
}
