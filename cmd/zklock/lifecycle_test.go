package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zksim/zksim/zkapi/gozk"
)

// proc is a zklock binary running in the background.
type proc struct {
	cmd    *exec.Cmd
	lines  chan string
	stderr *lockedWriter
	buf    *bytes.Buffer
	done   chan int
}

// startBinary runs zklock's binary. Its stdout and stderr are pipes of
// the test's own, not exec's copies, so that zklock's exit is seen even
// while a command it left behind still holds them open.
func startBinary(t *testing.T, bin string, args ...string) *proc {
	t.Helper()
	buf := &bytes.Buffer{}
	p := &proc{cmd: exec.Command(bin, args...), lines: make(chan string, 16), stderr: &lockedWriter{w: buf}, buf: buf, done: make(chan int, 1)}
	out, outw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	errr, errw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stdout, p.cmd.Stderr = outw, errw
	err = p.cmd.Start()
	outw.Close()
	errw.Close()
	if err != nil {
		out.Close()
		errr.Close()
		t.Fatal(err)
	}
	go func() {
		defer out.Close()
		s := bufio.NewScanner(out)
		for s.Scan() {
			p.lines <- s.Text()
		}
	}()
	go func() {
		defer errr.Close()
		io.Copy(p.stderr, errr)
	}()
	go func() { p.done <- exitCode(p.cmd.Wait()) }()
	t.Cleanup(func() { p.cmd.Process.Kill() })
	return p
}

func (p *proc) errText() string {
	p.stderr.mu.Lock()
	defer p.stderr.mu.Unlock()
	return p.buf.String()
}

func (p *proc) line(t *testing.T, ctx context.Context) string {
	t.Helper()
	select {
	case l := <-p.lines:
		return l
	case code := <-p.done:
		select {
		case l := <-p.lines: // printed before it exited
			p.done <- code
			return l
		default:
		}
		t.Fatalf("zklock exited %d first: %q", code, p.errText())
	case <-ctx.Done():
		t.Fatalf("no output: %q", p.errText())
	}
	return ""
}

func (p *proc) exit(t *testing.T, ctx context.Context) int {
	t.Helper()
	select {
	case code := <-p.done:
		return code
	case <-ctx.Done():
		t.Fatalf("zklock did not exit: %q", p.errText())
	}
	return 0
}

// exists reports whether node exists, asked on a session of its own.
func exists(t *testing.T, ctx context.Context, addr, node string) bool {
	t.Helper()
	conn, err := gozk.DialContext(ctx, []string{addr}, gozk.Config{SessionTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, ok, err := conn.Exists(ctx, node)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// The ensemble goes away while zklock holds: once the command has ended,
// the check and the release are bounded by the session timeout (the
// server has expired the session and its node by then), and zklock exits
// 4 rather than hanging.
func TestZklock_EnsembleGoneExits4(t *testing.T) {
	onBackends(t, func(t *testing.T, b backend) {
		addr, gone := b.mortal(t)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		stdin, release := pipe(t)
		z := startZklock([]string{"-servers", addr, "-session-timeout", "2s", b.path(t, "gone"), "--", "sh", "-c", `echo "$ZKLOCK_NODE"; read x; exit 0`}, stdin)
		z.line(t, ctx)
		gone()
		release()
		start := time.Now()
		code := z.exit(t, ctx)
		if code != exitLost || !strings.Contains(z.stderr(), "zklock: ") {
			t.Fatalf("exit %d: %q", code, z.stderr())
		}
		if d := time.Since(start); d > 8*time.Second {
			t.Errorf("exit after %v, want about the 2s session timeout", d)
		}
	})
}

// children counts path's children.
func children(t *testing.T, ctx context.Context, addr, path string) int {
	t.Helper()
	conn, err := gozk.DialContext(ctx, []string{addr}, gozk.Config{SessionTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	names, _, err := conn.Children(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	return len(names)
}

// waitQueued polls path until zklock's queue node has joined the
// holder's: there is no event to wait on from outside.
func waitQueued(t *testing.T, ctx context.Context, addr, path string) {
	t.Helper()
	for children(t, ctx, addr, path) < 2 {
		if ctx.Err() != nil {
			t.Fatal("zklock never queued")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// SIGINT while waiting deletes the queue node before zklock exits, so
// the next waiter is not held up by a node nobody will ever hold.
func TestZklock_InterruptWhileWaitingLeavesQueue(t *testing.T) {
	bin := buildZklock(t)
	onBackends(t, func(t *testing.T, b backend) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		path := b.path(t, "intwait")
		holdLock(t, b.addr, path, false)
		p := startBinary(t, bin, "-servers", b.addr, path, "--", "true")
		waitQueued(t, ctx, b.addr, path)
		p.cmd.Process.Signal(syscall.SIGINT)
		code := p.exit(t, ctx)
		if n := children(t, ctx, b.addr, path); n != 1 {
			t.Errorf("%d nodes under the lock after zklock exited, want the holder's alone", n)
		}
		if code != 128+int(syscall.SIGINT) || !strings.Contains(p.errText(), "zklock: ") {
			t.Errorf("exit %d: %q", code, p.errText())
		}
	})
}

// A server that accepts and never answers: -connect-timeout bounds the
// whole connect, dial and handshake.
func TestZklock_ConnectTimeoutSilentServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	done := make(chan int, 1)
	var errb lockedWriter
	var buf bytes.Buffer
	errb.w = &buf
	start := time.Now()
	go func() {
		done <- run([]string{"-servers", ln.Addr().String(), "-connect-timeout", "1s", "/x", "--", "true"}, noEnv, nil, io.Discard, &errb, gozk.Config{})
	}()
	select {
	case code := <-done:
		if code != exitZK {
			t.Errorf("exit %d", code)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("gave up after %v, want about 1s", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still connecting 10s after a 1s -connect-timeout")
	}
}

// The lease's promise: if zklock loses contact with the ensemble, it
// signals the command once half the session timeout has passed with no
// answer, before the server may expire the session and grant the lease
// to another, and exits 4; it does not wait to hear of an expiry it may
// never hear of, nor for go-zookeeper to notice the silence (2.7 s here).
func TestZklock_PartitionSignalsCommand(t *testing.T) {
	onBackends(t, func(t *testing.T, b backend) {
		proxy := b.proxy(t)
		for _, flags := range [][]string{{"-n", "1"}, nil} {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			script := `trap 'echo signalled; exit 143' TERM; echo "$ZKLOCK_TOKEN"; while :; do sleep 0.05; done`
			args := append(append([]string{"-servers", proxy.Addr(), "-session-timeout", "3s"}, flags...), b.path(t, "part"), "--", "sh", "-c", script)
			z := startZklock(args, nil)
			z.line(t, ctx)
			proxy.Stall()
			start := time.Now()
			got := z.line(t, ctx)
			d := time.Since(start)
			code := z.exit(t, ctx)
			proxy.Resume()
			cancel()
			if got != "signalled" || code != exitLost || !strings.Contains(z.stderr(), "sending SIGTERM") {
				t.Errorf("%v: printed %q, exit %d: %q", flags, got, code, z.stderr())
			}
			if d > 2400*time.Millisecond {
				t.Errorf("%v: command signalled %v after the link went silent, want about half the 3s session timeout (and well before the server may expire it)", flags, d)
			}
			t.Logf("%v: command signalled %v after the link went silent", flags, d.Round(time.Millisecond))
		}
	})
}

// With no command, zklock holds until a signal, like etcdctl lock: it
// prints the node and token, and on SIGTERM releases and exits 0.
func TestZklock_NoCommandHoldsUntilSignal(t *testing.T) {
	bin := buildZklock(t)
	onBackends(t, func(t *testing.T, b backend) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		p := startBinary(t, bin, "-servers", b.addr, b.path(t, "hold"))
		node, ok := strings.CutPrefix(p.line(t, ctx), "ZKLOCK_NODE=")
		if tok := p.line(t, ctx); !ok || !strings.HasPrefix(tok, "ZKLOCK_TOKEN=") {
			t.Fatalf("printed %q, %q", node, tok)
		}
		if !exists(t, ctx, b.addr, node) {
			t.Fatal("lock node missing while held")
		}
		p.cmd.Process.Signal(syscall.SIGTERM)
		if code := p.exit(t, ctx); code != 0 {
			t.Fatalf("exit %d: %q", code, p.errText())
		}
		if exists(t, ctx, b.addr, node) {
			t.Error("lock node left behind")
		}
	})
}

// A chroot in the server string roots the lock path, as in a ZooKeeper
// connect string.
func TestZklock_Chroot(t *testing.T) {
	onBackends(t, func(t *testing.T, b backend) {
		chroot := b.path(t, "chroot")
		var out bytes.Buffer
		code := run([]string{"-servers", b.addr + chroot + "/locks", "/x", "--", "sh", "-c", `echo "$ZKLOCK_NODE"`}, noEnv, nil, &out, io.Discard, gozk.Config{})
		if code != 0 || !strings.HasPrefix(out.String(), chroot+"/locks/x/lock-") {
			t.Fatalf("exit %d, node %q", code, out.String())
		}
	})
}

// Timeouts take a bare number as seconds, fractions too, as flock -w does.
func TestZklock_FractionalSeconds(t *testing.T) {
	o, code := parse([]string{"-servers", "h:1", "-timeout", "1.5", "-session-timeout", "4", "/x", "--", "true"}, noEnv, io.Discard)
	if code != -1 || o.timeout != 1500*time.Millisecond || o.session != 4*time.Second {
		t.Fatalf("exit %d, timeout %v, session %v", code, o.timeout, o.session)
	}
}

// SIGINT while waiting with the link silent: leaving the queue retries
// through connection loss, but only for the session timeout (the server
// expires the session and its node by then); zklock still exits 130.
func TestZklock_InterruptWhileWaitingCutOff(t *testing.T) {
	bin := buildZklock(t)
	onBackends(t, func(t *testing.T, b backend) {
		proxy := b.proxy(t)
		defer proxy.Resume()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		path := b.path(t, "intcut")
		holdLock(t, b.addr, path, false)
		p := startBinary(t, bin, "-servers", proxy.Addr(), "-session-timeout", "2s", path, "--", "true")
		waitQueued(t, ctx, b.addr, path)
		proxy.Stall()
		start := time.Now()
		p.cmd.Process.Signal(syscall.SIGINT)
		code := p.exit(t, ctx)
		if d := time.Since(start); code != 128+int(syscall.SIGINT) || d > 6*time.Second {
			t.Errorf("exit %d after %v, want 130 within the 2s session timeout and the close: %q", code, d, p.errText())
		}
	})
}
