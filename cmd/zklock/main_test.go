package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/netserver"
	"github.com/zksim/zksim/internal/zktest"
	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/rwlock"
	"github.com/zksim/zksim/semaphore"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

func noEnv(string) string { return "" }

func env(name, value string) func(string) string {
	return func(n string) string {
		if n == name {
			return value
		}
		return ""
	}
}

func TestZklock_Usage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  func(string) string
		want string
	}{
		{[]string{"/x", "--", "true"}, noEnv, "no servers: give -servers"},
		{[]string{"-servers", "h:1", "/x", "true"}, noEnv, "want a lock path, then --"},
		{[]string{"-servers", "h:1", "x", "--", "true"}, noEnv, "must be an absolute node path"},
		{[]string{"-servers", "h:1", "-signal", "USR9", "/x", "--", "true"}, noEnv, `-signal "USR9"`},
		{[]string{"-servers", "h:1", "-timeout", "soon", "/x", "--", "true"}, noEnv, "invalid value"},
		{[]string{"-bogus"}, noEnv, "flag provided but not defined"},
		{[]string{"-servers", "garbage", "/x", "--", "true"}, noEnv, `-servers: server "garbage": want host:port`},
		{[]string{"-servers", "h:0", "/x", "--", "true"}, noEnv, "port from 1 to 65535"},
		{[]string{"/x", "--", "true"}, env(envServers, "garbage"), `$ZKLOCK_SERVERS: server "garbage"`},
		{[]string{"-servers", "h:1", "-conflict-exit", "256", "/x", "--", "true"}, noEnv, "0 to 255"},
		{[]string{"-servers", "h:1", "-lost-exit", "-1", "/x", "--", "true"}, noEnv, "0 to 255"},
		{[]string{"-servers", "h:1", "-nonblock", "-timeout", "1s", "/x", "--", "true"}, noEnv, "exclude each other"},
		{[]string{"-servers", "h:1", "-connect-timeout", "0s", "/x", "--", "true"}, noEnv, "durations must be positive"},
		{[]string{"-servers", "h:1", "-n", "-1", "/x", "--", "true"}, noEnv, "-n -1: want a number of leases from 1 to"},
		{[]string{"-servers", "h:1", "-n", "0", "/x", "--", "true"}, noEnv, "-n 0: want a number of leases from 1 to"},
		{[]string{"-servers", "h:1", "-timeout", "5min", "/x", "--", "true"}, noEnv, "or a number of seconds"},
		{[]string{"-servers", "h:1/app//x", "/x", "--", "true"}, noEnv, `chroot "/app//x"`},
		{[]string{"-servers", "h:1", "-n", "2000000", "/x", "--", "true"}, noEnv, "-n 2000000: want a number of leases"},
		{[]string{"-servers", "h:1", "-n", "2", "-read", "/x", "--", "true"}, noEnv, "-n and -read exclude each other"},
	} {
		var errb bytes.Buffer
		if code := run(tc.args, tc.env, nil, io.Discard, &errb, gozk.Config{}); code != exitUsage || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, %q", tc.args, code, errb.String())
		}
	}
}

// The usage text carries the exit-code table, and zklock's manual
// (docs/zklock.md) names every flag and every exit code of it.
func TestZklock_DocumentsExitCodes(t *testing.T) {
	var errb bytes.Buffer
	if code := run([]string{"-h"}, noEnv, nil, io.Discard, &errb, gozk.Config{}); code != 0 {
		t.Fatalf("-h: exit %d", code)
	}
	for _, want := range []string{"Exit codes:", "-conflict-exit N replaces 3", "-lost-exit N replaces 4", "126", "128+S", "$ZKLOCK_SERVERS"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("usage lacks %q:\n%s", want, errb.String())
		}
	}
	manual, err := os.ReadFile("../../docs/zklock.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(manual)
	for _, want := range []string{"`-servers`", "`ZKLOCK_SERVERS`", "`-read`", "`-n N`", "`-nonblock`", "`-timeout`",
		"`-conflict-exit`", "`-lost-exit`", "`-connect-timeout`", "`-session-timeout`", "`-signal`", "`-kill-after`",
		"| 2 |", "| 3 |", "| 4 |", "| 5 |", "| 126 |", "| 127 |", "| 128+S |",
		"SIGHUP", "SIGQUIT", "SIGKILL", "SIGPWR", "SIGSYS", "real-time signals 35 to 64", "signals 32 and 34", "subtests `serve` and `real`", "the ensemble dies", "accepts and never answers", "What a lease promises", "`ZKLOCK_TOKEN`"} {
		if !strings.Contains(section, want) {
			t.Errorf("docs/zklock.md lacks %s", want)
		}
	}
}

func unique(name string) string {
	return fmt.Sprintf("/zklock-test-%s-%d", name, time.Now().UnixNano())
}

// An unreachable ensemble is exit 5 after -connect-timeout, with one line
// naming it.
func TestZklock_Unreachable(t *testing.T) {
	var errb bytes.Buffer
	code := run([]string{"-servers", "127.0.0.1:1", "-connect-timeout", "300ms", "/x", "--", "true"}, noEnv, nil, io.Discard, &errb, gozk.Config{})
	want := "zklock: no ZooKeeper session from 127.0.0.1:1 within 300ms (-connect-timeout)\n"
	if code != exitZK || errb.String() != want {
		t.Fatalf("exit %d: %q, want %q", code, errb.String(), want)
	}
}

// serveFake starts zksim serve's server in process.
func serveFake(t *testing.T) (*netserver.Server, string) {
	return zktest.ServeFake(t, netserver.Config{})
}

// The command runs under the lock with the token and node in its
// environment, and zklock exits with the command's code. The token is the
// lock node's czxid, as the server gave it (on the real server too, where
// the check before the release is a multi of one check op, which 3.8 must
// accept).
func TestZklock_RunsCommandWithToken(t *testing.T) {
	onBackends(t, func(t *testing.T, b backend) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		stdin, release := pipe(t)
		z := startZklock([]string{"-servers", b.addr, b.path(t, "env"), "--", "sh", "-c", `echo "$ZKLOCK_TOKEN $ZKLOCK_NODE"; read x; exit 7`}, stdin)
		var token int64
		var node string
		fmt.Sscan(z.line(t, ctx), &token, &node)
		czxid := stat(t, ctx, b.addr, node).Czxid
		release()
		if code := z.exit(t, ctx); code != 7 || token != czxid || !strings.Contains(node, "/lock-") {
			t.Fatalf("exit %d, token %d for node %q of czxid %d: %q", code, token, node, czxid, z.stderr())
		}
	})
}

// ZKLOCK_SERVERS stands in for -servers, and -servers overrides it.
func TestZklock_ServersFromEnvironment(t *testing.T) {
	_, addr := serveFake(t)
	for _, tc := range []struct {
		name string
		args []string
		env  string
	}{
		{"env only", nil, addr},
		{"flag over env", []string{"-servers", addr}, "127.0.0.1:1"},
	} {
		var errb bytes.Buffer
		args := append(append(tc.args, "-connect-timeout", "5s"), unique("env"), "--", "true")
		if code := run(args, env(envServers, tc.env), nil, io.Discard, &errb, gozk.Config{}); code != 0 {
			t.Errorf("%s: exit %d: %q", tc.name, code, errb.String())
		}
	}
}

// holdLock takes the lock at path on its own session until t ends: the
// exclusive lock zklock takes, or with rw the write side of the
// read/write lock that zklock -read shares with readers.
func holdLock(t *testing.T, addr, path string, rw bool) {
	t.Helper()
	ctx := context.Background()
	conn, err := gozk.DialContext(ctx, []string{addr}, gozk.Config{SessionTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if rw {
		w, err := rwlock.New(conn, path, rwlock.Options{})
		if err == nil {
			_, err = w.Acquire(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	m, err := lock.New(conn, path, lock.Options{})
	if err == nil {
		_, err = m.Acquire(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// -timeout and -nonblock give up with exit 3 while someone else holds the
// lock, or with -conflict-exit's code, and never run the command.
func TestZklock_Conflict(t *testing.T) {
	onBackends(t, func(t *testing.T, b backend) { conflict(t, b.addr, b.path(t, "conflict"), b.path(t, "conflict-rw")) })
}

func conflict(t *testing.T, addr, path, rwPath string) {
	holdLock(t, addr, path, false)
	holdLock(t, addr, rwPath, true)
	for _, tc := range []struct {
		flags []string
		path  string
		code  int
		want  string
	}{
		{[]string{"-timeout", "300ms"}, path, exitConflict, "still held after 300ms"},
		{[]string{"-nonblock"}, path, exitConflict, "is held by another"},
		{[]string{"-timeout", "300ms", "-conflict-exit", "75"}, path, 75, "still held"},
		{[]string{"-nonblock", "-read", "-conflict-exit", "0"}, rwPath, 0, "is held by another"},
	} {
		var out, errb bytes.Buffer
		args := append(append([]string{"-servers", addr}, tc.flags...), tc.path, "--", "echo", "ran")
		code := run(args, noEnv, nil, &out, &errb, gozk.Config{})
		if code != tc.code || !strings.Contains(errb.String(), tc.want) || out.Len() > 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tc.flags, code, out.String(), errb.String())
		}
	}
}

// holdLease takes one lease of the semaphore of n at path on its own
// session until t ends.
func holdLease(t *testing.T, addr, path string, n int) {
	t.Helper()
	ctx := context.Background()
	conn, err := gozk.DialContext(ctx, []string{addr}, gozk.Config{SessionTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	s, err := semaphore.New(conn, path, n, semaphore.Options{})
	if err == nil {
		_, err = s.Acquire(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// -n N holds one of N leases: the command runs beside N-1 other holders
// with its lease node and token in the environment, -nonblock and
// -timeout give up once all N are held, and another N is refused with
// exit 2, before the command runs.
func TestZklock_SemaphoreLeases(t *testing.T) {
	onBackends(t, func(t *testing.T, b backend) { semaphoreLeases(t, b.addr, b.path(t, "leases")) })
}

func semaphoreLeases(t *testing.T, addr, path string) {
	holdLease(t, addr, path, 3)
	holdLease(t, addr, path, 3)
	var out bytes.Buffer
	code := run([]string{"-servers", addr, "-n", "3", "-nonblock", path, "--", "sh", "-c", `echo "$ZKLOCK_TOKEN $ZKLOCK_NODE"`},
		noEnv, nil, &out, io.Discard, gozk.Config{})
	var token int64
	var node string
	fmt.Sscan(out.String(), &token, &node)
	if code != 0 || token <= 0 || !strings.Contains(node, path+"/leases/lease_n3-") {
		t.Fatalf("third of 3 leases: exit %d, output %q", code, out.String())
	}
	holdLease(t, addr, path, 3)
	for _, tc := range []struct {
		flags []string
		code  int
		want  string
	}{
		{[]string{"-n", "3", "-nonblock"}, exitConflict, "has all 3 leases held or waited for (-nonblock)"},
		{[]string{"-n", "3", "-timeout", "300ms"}, exitConflict, "has all 3 leases held after 300ms (-timeout)"},
		{[]string{"-n", "2"}, exitUsage, "this handle has 2 leases"},
		{[]string{"-nonblock"}, 0, ""}, // the lock's nodes are another kind: no conflict
	} {
		var out, errb bytes.Buffer
		args := append(append([]string{"-servers", addr}, tc.flags...), path, "--", "echo", "ran")
		code := run(args, noEnv, nil, &out, &errb, gozk.Config{})
		ran := out.String() == "ran\n"
		if code != tc.code || !strings.Contains(errb.String(), tc.want) || ran != (tc.code == 0) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tc.flags, code, out.String(), errb.String())
		}
	}
}

// A command that cannot be found or executed is 127 or 126, as in a
// shell.
func TestZklock_CommandNotRun(t *testing.T) {
	_, addr := serveFake(t)
	notExec := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]int{"/nonexistent/zklock-cmd": exitNotFound, "zklock-no-such-cmd": exitNotFound, notExec: exitCannot} {
		var errb bytes.Buffer
		if code := run([]string{"-servers", addr, unique("cmd"), "--", cmd}, noEnv, nil, io.Discard, &errb, gozk.Config{}); code != want {
			t.Errorf("%s: exit %d, want %d: %q", cmd, code, want, errb.String())
		}
	}
}

// Concurrent zklock processes exclude each other: each command takes a
// directory that only one can hold at a time.
func TestZklock_ProcessesExclude(t *testing.T) {
	bin := buildZklock(t)
	onBackends(t, func(t *testing.T, b backend) { processesExclude(t, bin, b.addr, b.path(t, "exclude")) })
}

func processesExclude(t *testing.T, bin, addr, path string) {
	held := filepath.Join(t.TempDir(), "held")
	var wg sync.WaitGroup
	codes := make([]int, 4)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(bin, "-timeout", "60s", path, "--",
				"sh", "-c", "mkdir "+held+" || exit 9; sleep 0.2; rmdir "+held)
			cmd.Env = append(os.Environ(), envServers+"="+addr)
			err := cmd.Run()
			codes[i] = exitCode(err)
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != 0 {
			t.Errorf("zklock %d exited %d (9: two commands held the lock at once)", i, c)
		}
	}
}

// lineWriter hands each line written to it to lines.
type lineWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	lines chan string
}

func newLineWriter() *lineWriter { return &lineWriter{lines: make(chan string, 16)} }

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for {
		line, err := w.buf.ReadString('\n')
		if err != nil {
			w.buf.WriteString(line)
			return len(p), nil
		}
		w.lines <- strings.TrimSuffix(line, "\n")
	}
}

// zklockRun is one zklock running in the background.
type zklockRun struct {
	out  *lineWriter
	errb *lockedWriter
	buf  *bytes.Buffer
	done chan int
}

func (z *zklockRun) stderr() string {
	z.errb.mu.Lock()
	defer z.errb.mu.Unlock()
	return z.buf.String()
}

func startZklock(args []string, stdin io.Reader) *zklockRun {
	return startZklockWith(args, stdin, gozk.Config{})
}

// startZklockWith is startZklock with a connection config (a dialer).
func startZklockWith(args []string, stdin io.Reader, cfg gozk.Config) *zklockRun {
	buf := &bytes.Buffer{}
	z := &zklockRun{out: newLineWriter(), errb: &lockedWriter{w: buf}, buf: buf, done: make(chan int, 1)}
	go func() { z.done <- run(args, noEnv, stdin, z.out, z.errb, cfg) }()
	return z
}

// line waits for the command's next line of output.
func (z *zklockRun) line(t *testing.T, ctx context.Context) string {
	t.Helper()
	select {
	case l := <-z.out.lines:
		return l
	case code := <-z.done:
		t.Fatalf("zklock exited %d first: %q", code, z.stderr())
	case <-ctx.Done():
		t.Fatal("no output from the command")
	}
	return ""
}

func (z *zklockRun) exit(t *testing.T, ctx context.Context) int {
	t.Helper()
	select {
	case code := <-z.done:
		return code
	case <-ctx.Done():
		t.Fatalf("zklock did not exit: %q", z.stderr())
	}
	return 0
}

// owner is the session that owns node.
func owner(t *testing.T, ctx context.Context, addr, node string) int64 {
	t.Helper()
	return stat(t, ctx, addr, node).EphemeralOwner
}

// stat is node's stat, asked on a session of its own.
func stat(t *testing.T, ctx context.Context, addr, node string) zkapi.Stat {
	t.Helper()
	conn, err := gozk.DialContext(ctx, []string{addr}, gozk.Config{SessionTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	st, ok, err := conn.Exists(ctx, node)
	if err != nil || !ok {
		t.Fatalf("lock node %s: exists %v, %v", node, ok, err)
	}
	return st
}

// When the session is lost mid-command, the command is signalled, and
// zklock says so with the signal's name and exits 4; a -n lease too.
func TestZklock_SessionLostSignalsCommand(t *testing.T) {
	onBackends(t, sessionLostSignalsCommand)
}

func sessionLostSignalsCommand(t *testing.T, b backend) {
	for _, flags := range [][]string{nil, {"-n", "2"}} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		args := append(append([]string{"-servers", b.addr}, flags...), b.path(t, "lost"), "--", "sh", "-c", `echo "$ZKLOCK_NODE"; exec sleep 30`)
		z := startZklockWith(args, nil, b.cfg())
		node := z.line(t, ctx)
		b.expire(t, ctx, node)
		code := z.exit(t, ctx)
		cancel()
		stderr := z.stderr()
		for _, want := range []string{"sending SIGTERM to the command (pid ", "SIGKILL after 10s", "the command was terminated by SIGTERM; exit 4"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%v: stderr lacks %q", flags, want)
			}
		}
		if code != exitLost {
			t.Errorf("%v: exit %d, want %d", flags, code, exitLost)
		}
		if t.Failed() {
			t.Logf("stderr: %q", stderr)
		}
	}
}

// The measurement, as a test: the session expires during a short
// command, which ends before zklock has heard of the expiry (its link is
// stalled meanwhile). zklock must not take the command's 0 for its own.
func TestZklock_SessionExpiredDuringShortCommand(t *testing.T) {
	onBackends(t, sessionExpiredDuringShortCommand)
}

func sessionExpiredDuringShortCommand(t *testing.T, b backend) {
	proxy := b.proxy(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stdin, release := pipe(t)
	z := startZklockWith([]string{"-servers", proxy.Addr(), b.path(t, "short"), "--", "sh", "-c", `echo "$ZKLOCK_NODE"; read x; echo done`}, stdin, b.cfg())
	node := z.line(t, ctx)
	proxy.Stall()
	b.expire(t, ctx, node)
	release()
	z.line(t, ctx) // "done": the command is ending, zklock has heard nothing
	proxy.Resume()
	if code := z.exit(t, ctx); code != exitLost || !strings.Contains(z.stderr(), "the command exited 0; exit 4") {
		t.Fatalf("exit %d: %q", code, z.stderr())
	}
}

// The lock can be lost with the session alive: someone deletes the lock
// node while the command runs, and a waiter takes the lock. If the
// release's delete is then lost on the way, its retry's NoNode looks like
// our own delete having applied; only the check before the release tells.
func TestZklock_NodeDeletedDuringCommand(t *testing.T) {
	srv, addr := serveFake(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	path := unique("deleted")
	stdin, release := pipe(t)
	z := startZklock([]string{"-servers", addr, path, "--", "sh", "-c", `echo "$ZKLOCK_NODE"; read x; exit 0`}, stdin)
	node := z.line(t, ctx)

	other, err := gozk.DialContext(ctx, []string{addr}, gozk.Config{SessionTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Delete(ctx, node, zkapi.AnyVersion); err != nil {
		t.Fatal(err)
	}
	m, _ := lock.New(other, path, lock.Options{})
	if _, err := m.TryAcquire(ctx); err != nil {
		t.Fatalf("another holder could not take the lock: %v", err)
	}
	if _, err := srv.LoseRequest(netserver.Match{Op: "delete", Path: node}); err != nil {
		t.Fatal(err)
	}
	release()
	if code := z.exit(t, ctx); code != exitLost || !strings.Contains(z.stderr(), "not held to the end") {
		t.Fatalf("exit %d: %q", code, z.stderr())
	}
}

// When the lock was held to the end, a command's own exit 4 is passed on,
// with no zklock line; -lost-exit moves zklock's own code out of its way.
func TestZklock_CommandsOwnExit4(t *testing.T) {
	srv, addr := serveFake(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var errb bytes.Buffer
	if code := run([]string{"-servers", addr, unique("own4"), "--", "sh", "-c", "exit 4"}, noEnv, nil, io.Discard, &errb, gozk.Config{}); code != 4 || errb.Len() > 0 {
		t.Fatalf("exit %d: %q", code, errb.String())
	}
	z := startZklock([]string{"-servers", addr, "-lost-exit", "99", unique("lost99"), "--", "sh", "-c", `echo "$ZKLOCK_NODE"; exec sleep 30`}, nil)
	node := z.line(t, ctx)
	if err := srv.Expire(owner(t, ctx, addr, node)); err != nil {
		t.Fatal(err)
	}
	if code := z.exit(t, ctx); code != 99 || !strings.Contains(z.stderr(), "exit 99") {
		t.Fatalf("-lost-exit 99: exit %d: %q", code, z.stderr())
	}
}

// pipe is a stdin for the command and a func that ends it.
func pipe(t *testing.T) (io.Reader, func()) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, func() { w.Close() }
}
