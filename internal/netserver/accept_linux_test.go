package netserver_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/machine"
	"github.com/zksim/zksim/internal/netserver"
)

// emfileChild, set in a child's environment, makes
// TestServer_AcceptAfterEMFILE serve under a low open-file limit.
const emfileChild = "ZKSIM_TEST_EMFILE_CHILD"

// TestServer_AcceptAfterEMFILE runs a server out of file descriptors for
// real: this test binary, run again as a child so that its lowered
// RLIMIT_NOFILE stays there, serves with a limit of 64; the test opens
// 100 connections, which makes its Accept fail with EMFILE, closes them,
// and a new client must then get a session, as on the real server.
func TestServer_AcceptAfterEMFILE(t *testing.T) {
	if os.Getenv(emfileChild) != "" {
		serveUnderLowFileLimit()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestServer_AcceptAfterEMFILE$")
	cmd.Env = append(os.Environ(), emfileChild+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	lines := bufio.NewScanner(stdout)
	addr := childLine(t, lines, "addr ", "skip: ")
	var conns []net.Conn
	for range 100 {
		nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		conns = append(conns, nc)
	}
	if line := childLine(t, lines, "accept failed", ""); !strings.Contains(line, "too many open files") {
		t.Fatalf("the server's accept failed with %q, want EMFILE", line)
	}
	for _, nc := range conns {
		nc.Close()
	}
	for !getsSession(t, addr) {
		if ctx.Err() != nil {
			t.Fatal("no new session once the connections that used up the file descriptors closed")
		}
	}
	stdin.Close()
	for lines.Scan() {
	}
}

// childLine reads the child's output up to a line starting with want and
// returns the rest of it; a line starting with skip skips the test.
func childLine(t *testing.T, lines *bufio.Scanner, want, skip string) string {
	t.Helper()
	for lines.Scan() {
		line := lines.Text()
		if rest, ok := strings.CutPrefix(line, want); ok {
			return rest
		}
		if rest, ok := strings.CutPrefix(line, skip); ok && skip != "" {
			t.Skip(rest)
		}
	}
	t.Fatalf("the child ended without a line %q: %v", want, lines.Err())
	return ""
}

// serveUnderLowFileLimit is the child: it lowers its open-file limit,
// serves, prints its address and log lines on stdout, and stops when its
// stdin closes.
func serveUnderLowFileLimit() {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		fmt.Println("skip: getrlimit:", err)
		return
	}
	lim.Cur = 64
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		fmt.Println("skip: setrlimit:", err)
		return
	}
	srv, err := netserver.New(netserver.Config{
		Machine: machine.Config{TickMillis: 500}, MaxClientCnxns: -1,
		Logf: func(format string, args ...any) { fmt.Printf(format+"\n", args...) },
	})
	if err != nil {
		fmt.Println("skip:", err)
		return
	}
	defer srv.Close()
	addr, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		fmt.Println("skip:", err)
		return
	}
	fmt.Println("addr", addr)
	io.Copy(io.Discard, os.Stdin)
}
