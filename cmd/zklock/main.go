// Command zklock holds a ZooKeeper lock while a command runs, like
// flock(1) and etcdctl lock:
//
//	zklock [-servers host:port[,...]] [-read | -n N] [-nonblock | -timeout D] /lock/path -- command args...
//
// It takes zksim's herd-free lock (with -read, the read side of the
// read/write lock; with -n N, one of the N leases of zksim's semaphore) at
// /lock/path, runs the command with ZKLOCK_TOKEN (the fencing token: the
// lock or lease node's czxid) and ZKLOCK_NODE in its environment, and
// releases the lock when the command ends. The servers come from
// -servers, else from $ZKLOCK_SERVERS.
//
// With -n N, up to N commands hold a lease at once. Every zklock -n on a
// path must give the same N: one that finds a lease of another N ahead of
// it exits 2 (the semaphore refuses rather than over-grant). A lease's
// token identifies it; unlike the lock's, a lower token than another
// holder's does not mean its holder lost the lease.
//
// If the session is lost while the command runs, another holder may take
// the lock: zklock sends the command -signal (default SIGTERM, then
// SIGKILL after -kill-after), says so, and exits 4. It does not wait to
// hear of the expiry (a dead or cut-off ensemble never says): it probes
// the server every tenth of the session timeout and counts the lock lost
// once nothing sent in half of it was answered, before the server
// can expire the session. A signal is no fence; the token is.
//
// Every signal whose default action ends a process and that Go can catch
// (HUP, INT, QUIT, TERM, USR1, USR2, PIPE, ALRM, VTALRM, XCPU, XFSZ, IO,
// PWR, STKFLT, ABRT, SYS, the real-time signals from 35, and SEGV, BUS,
// FPE, ILL and TRAP as sent with kill; not 32 and 34, which Go cannot
// catch) is passed on to the command, and the lock is released only once
// the command has exited: a zklock that died of one would leave the
// command running while the lock lapsed. While connecting or waiting, a signal
// deletes the queue node, closes the session and exits 128+S. Every wait
// on the server after the command (the check, the release) and leaving
// the queue are bounded by the session timeout, so zklock always ends.
// With no command it holds until a signal, as etcdctl lock does. A loss the client has
// not heard of yet when the command ends is caught by one more round trip
// before the release: a check that the lock node still exists, ordered
// through the leader after everything the command wrote (see confirm).
//
// Exit codes (the usage text has the same table): the command's own
// (128+S if signal S ended it) when the lock was confirmed held after it
// ended; 2 usage error (or -n N against a semaphore of another N); 3
// -nonblock or -timeout found the lock (all N leases) held
// (-conflict-exit N replaces it); 4 the lock was lost or could not be
// confirmed held (-lost-exit N replaces it); 5 ZooKeeper unreachable
// within -connect-timeout, or failing; 126 and 127 the command could not
// be executed or found; 128+S signal S came while connecting or waiting
// (the queue node deleted, the session closed). Codes 2, 3, 5, 126, 127
// and 128+S come only before the
// command starts; after it has run, zklock's only own code is 4, always
// with a "zklock: " line on stderr, which is how a command's own exit 4
// is told apart (or choose -lost-exit).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/rwlock"
	"github.com/zksim/zksim/semaphore"
	"github.com/zksim/zksim/zkapi"
	"github.com/zksim/zksim/zkapi/gozk"
)

// Exit codes of zklock's own outcomes; 3 and 4 are the defaults of
// -conflict-exit and -lost-exit.
const (
	exitUsage    = 2
	exitConflict = 3
	exitLost     = 4
	exitZK       = 5
	exitCannot   = 126 // the command exists but could not be executed
	exitNotFound = 127
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr, gozk.Config{}))
}

// run is zklock; getenv reads ZKLOCK_SERVERS, and cfg lets tests give the
// connection a dialer.
func run(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer, cfg gozk.Config) int {
	o, code := parse(args, getenv, stderr)
	if code >= 0 {
		return code
	}
	sigs, stop := catch()
	defer stop()
	ctx := context.Background()
	conn, code := dial(ctx, o, cfg, sigs, stderr)
	if code >= 0 {
		return code
	}
	defer closeWithin(conn, closeGrace)

	l, code := acquire(ctx, conn, o, sigs, stderr)
	if code >= 0 {
		return code
	}
	token, err := l.Token(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "zklock: lost the lock on %s before the command started: %v\n", o.path, err)
		release(conn, l, o.session)
		return o.lostExit
	}
	select {
	case s := <-sigs:
		release(conn, l, o.session)
		fmt.Fprintf(stderr, "zklock: %s before the command started; released %s\n", osSignalName(s), o.path)
		return signalExit(s)
	default:
	}
	if _, isFile := stderr.(*os.File); !isFile {
		// exec copies the command's output from a goroutine of its own;
		// zklock's messages to the same writer must not race with it.
		stderr = &lockedWriter{w: stderr}
	}
	ran := supervise(ctx, conn, o, l, token, sigs, stdin, stdout, stderr)
	return settle(ctx, conn, o, l, ran, stderr)
}

// dialGrace is how long past -connect-timeout zklock waits for the
// connection attempt to wind down before abandoning it: go-zookeeper's
// handshake read has a deadline of its own (ten receive timeouts, 67 s at
// the default session timeout), which its Close waits for.
const dialGrace = 250 * time.Millisecond

type dialed struct {
	conn *gozk.Conn
	err  error
}

// dial connects, in one line of explanation when it cannot. The whole
// connect, dial and handshake, is bounded by -connect-timeout; a signal
// meanwhile ends zklock with 128+S.
func dial(ctx context.Context, o options, cfg gozk.Config, sigs <-chan os.Signal, stderr io.Writer) (zkapi.Conn, int) {
	cfg.SessionTimeout, cfg.ConnectTimeout = o.session, o.connectTimeout
	if cfg.Dialer == nil {
		cfg.Dialer = dialNoSigpipe
	}
	ctx, cancel := context.WithTimeout(ctx, o.connectTimeout)
	defer cancel()
	got := make(chan dialed, 1)
	go func() {
		c, err := gozk.DialContext(ctx, o.servers, cfg)
		got <- dialed{c, err}
	}()
	limit := time.NewTimer(o.connectTimeout + dialGrace)
	defer limit.Stop()
	var d dialed
	select {
	case d = <-got:
	case <-limit.C:
		d.err = context.DeadlineExceeded
		go abandon(got)
	case s := <-sigs:
		go abandon(got)
		fmt.Fprintf(stderr, "zklock: %s while connecting to ZooKeeper\n", osSignalName(s))
		return nil, signalExit(s)
	}
	return d.conn, explainDial(d.err, o, stderr)
}

// abandon closes a connection that arrives after zklock stopped waiting.
func abandon(got <-chan dialed) {
	if d := <-got; d.err == nil {
		d.conn.Close()
	}
}

// explainDial is dial's exit code for err (-1 for none) and its line.
func explainDial(err error, o options, stderr io.Writer) int {
	servers := strings.Join(o.servers, ",")
	switch {
	case err == nil:
		return -1
	case errors.Is(err, gozk.ErrConfig):
		fmt.Fprintf(stderr, "zklock: %v\n", err)
		return exitUsage
	case errors.Is(err, context.DeadlineExceeded):
		fmt.Fprintf(stderr, "zklock: no ZooKeeper session from %s within %v (-connect-timeout)\n", servers, o.connectTimeout)
		return exitZK
	}
	fmt.Fprintf(stderr, "zklock: cannot connect to ZooKeeper at %s: %v\n", servers, rootCause(err))
	return exitZK
}

// rootCause is the innermost of a chain of wrapped errors, which says
// what went wrong without the layers it went through.
func rootCause(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

type taken struct {
	l   recipe.Lease
	err error
}

// acquire takes the lock. A signal while waiting cancels the wait, which
// deletes the queue node (bounded by the session timeout: past it the
// server has expired the session and the node anyway), and ends zklock
// with 128+S.
func acquire(ctx context.Context, conn zkapi.Conn, o options, sigs <-chan os.Signal, stderr io.Writer) (recipe.Lease, int) {
	actx, cancel := context.WithCancel(ctx)
	if o.timeout > 0 {
		actx, cancel = context.WithTimeout(ctx, o.timeout)
	}
	defer cancel()
	got := make(chan taken, 1)
	go func() {
		l, err := take(actx, conn, o)
		got <- taken{l, err}
	}()
	var t taken
	select {
	case t = <-got:
	case s := <-sigs:
		cancel()
		leaveQueue(conn, o, got)
		fmt.Fprintf(stderr, "zklock: %s while waiting for %s; left the queue\n", osSignalName(s), o.path)
		return nil, signalExit(s)
	}
	l, err := t.l, t.err
	held := "is held by another"
	if o.leases > 0 {
		held = fmt.Sprintf("has all %d leases held or waited for", o.leases)
	}
	switch {
	case err == nil:
		return l, -1
	case errors.Is(err, recipe.ErrWouldBlock):
		fmt.Fprintf(stderr, "zklock: %s %s (-nonblock)\n", o.path, held)
		return nil, o.conflictExit
	case errors.Is(err, context.DeadlineExceeded):
		if o.leases > 0 {
			held = fmt.Sprintf("has all %d leases held", o.leases)
		} else {
			held = "still held"
		}
		fmt.Fprintf(stderr, "zklock: %s %s after %v (-timeout)\n", o.path, held, o.timeout)
		return nil, o.conflictExit
	case errors.Is(err, recipe.ErrConfig):
		fmt.Fprintf(stderr, "zklock: %v\n", err)
		return nil, exitUsage
	case errors.Is(err, semaphore.ErrMaxLeases):
		fmt.Fprintf(stderr, "zklock: -n %d: %v\n", o.leases, err)
		return nil, exitUsage
	}
	fmt.Fprintf(stderr, "zklock: %s: %v\n", o.path, err)
	return nil, exitZK
}

// take acquires the lock -read, -n and -nonblock choose.
func take(ctx context.Context, conn zkapi.Conn, o options) (recipe.Lease, error) {
	if o.leases > 0 {
		s, err := semaphore.New(conn, o.path, o.leases, semaphore.Options{})
		if err != nil {
			return nil, err
		}
		if o.nonblock {
			return nilIfErr(s.TryAcquire(ctx))
		}
		return nilIfErr(s.Acquire(ctx))
	}
	if o.read {
		rw, err := rwlock.New(conn, o.path, rwlock.Options{})
		if err != nil {
			return nil, err
		}
		if o.nonblock {
			return nilIfErr(rw.TryAcquireRead(ctx))
		}
		return nilIfErr(rw.AcquireRead(ctx))
	}
	m, err := lock.New(conn, o.path, lock.Options{})
	if err != nil {
		return nil, err
	}
	if o.nonblock {
		return nilIfErr(m.TryAcquire(ctx))
	}
	return nilIfErr(m.Acquire(ctx))
}

// nilIfErr keeps a typed nil lease out of the interface on failure.
func nilIfErr[L recipe.Lease](l L, err error) (recipe.Lease, error) {
	if err != nil {
		return nil, err
	}
	return l, nil
}
