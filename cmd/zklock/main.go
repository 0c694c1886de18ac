// Command zklock holds a ZooKeeper lock while a command runs, like
// flock(1) and etcdctl lock:
//
//	zklock -servers host:port[,...] [-read] [-timeout D] /lock/path -- command args...
//
// It takes zksim's herd-free lock (with -read, the read side of the
// read/write lock) at /lock/path, runs the command with ZKLOCK_TOKEN (the
// fencing token: the lock node's czxid) and ZKLOCK_NODE in its
// environment, and releases the lock when the command ends. If the
// session is lost while the command runs, another holder may take the
// lock: zklock sends the command -signal (default TERM, then KILL after
// -kill-after), says so, and exits 4.
//
// Exit codes: the command's own (128+N if it died of signal N); 2 usage
// error; 3 -timeout passed before the lock was free; 4 the lock was lost
// while the command ran; 5 ZooKeeper could not be reached or failed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/rwlock"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// Exit codes of zklock's own outcomes.
const (
	exitUsage   = 2
	exitTimeout = 3
	exitLost    = 4
	exitZK      = 5
)

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, gozk.Config{})) }

type options struct {
	servers   []string
	read      bool
	timeout   time.Duration
	session   time.Duration
	sig       syscall.Signal
	killAfter time.Duration
	path      string
	command   []string
}

var signals = map[string]syscall.Signal{"TERM": syscall.SIGTERM, "INT": syscall.SIGINT, "KILL": syscall.SIGKILL, "HUP": syscall.SIGHUP}

func parse(args []string, stderr io.Writer) (options, int) {
	fs := flag.NewFlagSet("zklock", flag.ContinueOnError)
	fs.SetOutput(stderr)
	servers := fs.String("servers", "", "ZooKeeper servers, host:port[,host:port...] (required)")
	read := fs.Bool("read", false, "take the read side of the read/write lock (shared with other readers)")
	timeout := fs.Duration("timeout", 0, "give up after this long waiting for the lock (exit 3); 0: wait")
	session := fs.Duration("session-timeout", 10*time.Second, "ZooKeeper session timeout")
	sig := fs.String("signal", "TERM", "signal for the command when the lock is lost: TERM, INT, HUP or KILL")
	killAfter := fs.Duration("kill-after", 10*time.Second, "send KILL this long after -signal if the command still runs")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: zklock -servers host:port[,...] [flags] /lock/path -- command args...\n\n")
		fs.PrintDefaults()
		fmt.Fprint(stderr, "\nExit codes: the command's; 2 usage; 3 timeout; 4 lock lost; 5 ZooKeeper error.\n")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return options{}, 0
		}
		return options{}, exitUsage
	}
	rest := fs.Args()
	bad := func(format string, a ...any) (options, int) {
		fmt.Fprintf(stderr, "zklock: "+format+"\n", a...)
		fs.Usage()
		return options{}, exitUsage
	}
	s, ok := signals[strings.ToUpper(strings.TrimPrefix(*sig, "SIG"))]
	switch {
	case *servers == "":
		return bad("-servers is required")
	case !ok:
		return bad("-signal %q: want TERM, INT, HUP or KILL", *sig)
	case *timeout < 0 || *session <= 0 || *killAfter < 0:
		return bad("durations must be positive")
	case len(rest) < 3 || rest[1] != "--":
		return bad("want a lock path, then --, then the command")
	case !strings.HasPrefix(rest[0], "/") || rest[0] == "/":
		return bad("lock path %q must be an absolute node path other than /", rest[0])
	}
	return options{
		servers: strings.Split(*servers, ","), read: *read, timeout: *timeout, session: *session,
		sig: s, killAfter: *killAfter, path: rest[0], command: rest[2:],
	}, -1
}

// lease is what both lock kinds give.
type lease interface {
	Token(context.Context) (int64, error)
	Node() string
	Wait(context.Context) error
	Release(context.Context) error
}

// run is zklock; cfg lets tests give the connection a dialer.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, cfg gozk.Config) int {
	o, code := parse(args, stderr)
	if code >= 0 {
		return code
	}
	ctx := context.Background()
	cfg.SessionTimeout = o.session
	conn, err := gozk.DialContext(ctx, o.servers, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "zklock: %v\n", err)
		return exitZK
	}
	defer conn.Close()

	l, code := acquire(ctx, conn, o, stderr)
	if code >= 0 {
		return code
	}
	token, err := l.Token(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "zklock: lost the lock on %s before the command started (%v)\n", o.path, err)
		l.Release(ctx)
		return exitLost
	}
	code = supervise(ctx, o, l, token, stdin, stdout, stderr)
	if err := l.Release(ctx); err != nil && code != exitLost {
		fmt.Fprintf(stderr, "zklock: release %s: %v\n", o.path, err)
		if errors.Is(err, lock.ErrLost) {
			return exitLost
		}
	}
	return code
}

func acquire(ctx context.Context, conn zkapi.Conn, o options, stderr io.Writer) (lease, int) {
	actx, cancel := ctx, context.CancelFunc(func() {})
	if o.timeout > 0 {
		actx, cancel = context.WithTimeout(ctx, o.timeout)
	}
	defer cancel()
	var (
		l   lease
		err error
	)
	if o.read {
		var rw *rwlock.RWMutex
		if rw, err = rwlock.New(conn, o.path, lock.Options{}); err == nil {
			l, err = rw.AcquireRead(actx)
		}
	} else {
		var m *lock.Mutex
		if m, err = lock.New(conn, o.path, lock.Options{}); err == nil {
			l, err = m.Acquire(actx)
		}
	}
	switch {
	case err == nil:
		return l, -1
	case errors.Is(err, context.DeadlineExceeded):
		fmt.Fprintf(stderr, "zklock: %s still held after %v\n", o.path, o.timeout)
		return nil, exitTimeout
	case errors.Is(err, lock.ErrConfig):
		fmt.Fprintf(stderr, "zklock: %v\n", err)
		return nil, exitUsage
	}
	fmt.Fprintf(stderr, "zklock: %s: %v\n", o.path, err)
	return nil, exitZK
}

// supervise runs the command while watching the lease, and returns the
// command's exit code or exitLost.
func supervise(ctx context.Context, o options, l lease, token int64, stdin io.Reader, stdout, stderr io.Writer) int {
	if _, isFile := stderr.(*os.File); !isFile {
		// exec copies the command's output from a goroutine of its own;
		// zklock's messages to the same writer must not race with it.
		stderr = &lockedWriter{w: stderr}
	}
	cmd := exec.Command(o.command[0], o.command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.Env = append(os.Environ(), fmt.Sprintf("ZKLOCK_TOKEN=%d", token), "ZKLOCK_NODE="+l.Node())
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "zklock: %v\n", err)
		return 127
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	lost := make(chan error, 1)
	watch, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go func() { lost <- l.Wait(watch) }()
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(interrupts)

	wasLost := false
	for {
		select {
		case err := <-exited:
			if wasLost {
				return exitLost
			}
			return exitCode(err)
		case err := <-lost:
			if errors.Is(err, context.Canceled) {
				continue
			}
			wasLost = true
			fmt.Fprintf(stderr, "zklock: lost the lock on %s (%v); sending %v to pid %d\n", o.path, err, o.sig, cmd.Process.Pid)
			cmd.Process.Signal(o.sig)
			if o.sig != syscall.SIGKILL {
				pid := cmd.Process
				time.AfterFunc(o.killAfter, func() { pid.Signal(syscall.SIGKILL) })
			}
		case s := <-interrupts:
			cmd.Process.Signal(s)
		}
	}
}

// lockedWriter serializes writes. It has no ReadFrom, so io.Copy writes
// through Write.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return 127
}
