package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/zksim/zksim/lock"
	"github.com/zksim/zksim/zkapi"
)

// ran is how the command went.
type ran struct {
	started bool
	code    int   // exit code, 128+S for signal S; 126 or 127 if not started
	err     error // exec's: what ended it
	lost    error // the loss of the lock zklock heard of while it ran
}

// describe says how the command ended: "exited 3", "was terminated by
// SIGTERM".
func (r ran) describe() string {
	var ee *exec.ExitError
	if errors.As(r.err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "was terminated by " + signalName(ws.Signal())
		}
	}
	return fmt.Sprintf("exited %d", r.code)
}

// supervise runs the command while watching the lease: if the session is
// lost, it sends the command -signal, and SIGKILL -kill-after later.
// SIGINT and SIGTERM to zklock are passed on to the command.
func supervise(ctx context.Context, o options, l lease, token int64, stdin io.Reader, stdout, stderr io.Writer) ran {
	cmd := exec.Command(o.command[0], o.command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.Env = append(os.Environ(), fmt.Sprintf("ZKLOCK_TOKEN=%d", token), "ZKLOCK_NODE="+l.Node())
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "zklock: %v\n", err)
		code := exitCannot
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			code = exitNotFound
		}
		return ran{code: code, err: err}
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

	r := ran{started: true}
	for {
		select {
		case err := <-exited:
			r.code, r.err = exitCode(err), err
			return r
		case err := <-lost:
			if errors.Is(err, context.Canceled) {
				continue
			}
			r.lost = err
			kill(cmd.Process, o, err, stderr)
		case s := <-interrupts:
			cmd.Process.Signal(s)
		}
	}
}

// kill stops a command whose lock is gone: -signal now, SIGKILL after
// -kill-after.
func kill(p *os.Process, o options, why error, stderr io.Writer) {
	then := ""
	if o.sig != syscall.SIGKILL {
		then = fmt.Sprintf(", SIGKILL after %v", o.killAfter)
		time.AfterFunc(o.killAfter, func() { p.Signal(syscall.SIGKILL) })
	}
	fmt.Fprintf(stderr, "zklock: lost the lock on %s (%v); sending %s to the command (pid %d)%s\n",
		o.path, why, signalName(o.sig), p.Pid, then)
	p.Signal(o.sig)
}

// settle decides zklock's exit once the command has ended, and releases
// the lock. The command's own code stands only if the lock is confirmed
// held after it ended.
func settle(ctx context.Context, conn zkapi.Conn, o options, l lease, r ran, stderr io.Writer) int {
	if !r.started {
		l.Release(ctx)
		return r.code
	}
	lost := r.lost
	if lost == nil {
		lost = confirm(ctx, conn, l, o.session)
	}
	if lost != nil {
		l.Release(ctx)
		fmt.Fprintf(stderr, "zklock: the lock on %s was not held to the end (%v); the command %s; exit %d\n",
			o.path, lost, r.describe(), o.lostExit)
		return o.lostExit
	}
	// Held to the end: a loss from here on cost the command nothing.
	if err := l.Release(ctx); err != nil && !errors.Is(err, lock.ErrLost) {
		fmt.Fprintf(stderr, "zklock: release %s: %v (it was held until the command ended)\n", o.path, err)
	}
	return r.code
}

// errUnconfirmed: confirm could not reach the server in time.
var errUnconfirmed = errors.New("could not confirm the lock was held")

// confirm reports whether the lease is still held now that the command
// has ended, which means it was held all the while: the lock node goes
// only with its session or with our release, and never comes back. In
// fencing terms: no later holder, and so no larger token than the
// command's ZKLOCK_TOKEN, can have existed while the command ran, since
// the next holder is granted only once our node is gone.
//
// The check is a multi holding one check of the node, as a fenced write
// is (Lease.Fenced): it goes through the leader, so it is ordered after
// every write the command made, fenced or not, where a read might be
// answered by a follower that has not yet applied the session's
// expiry. It changes nothing, so after a connection loss it is simply
// asked again once the link is back; asking the release's delete
// instead would be ambiguous there (a delete lost on the way may have
// applied, so a NoNode after it cannot tell a loss from our own delete).
// A session that stays unreachable for limit is not confirmed.
func confirm(ctx context.Context, conn zkapi.Conn, l lease, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		_, err := l.Fenced(ctx)
		if !errors.Is(err, zkapi.ErrConnectionLoss) {
			return err
		}
		s := conn.Session()
		if s.State == zkapi.StateConnected {
			continue
		}
		if _, err := conn.WaitSession(ctx, s.Seq); err != nil {
			return fmt.Errorf("%w: no connection within %v (-session-timeout)", errUnconfirmed, limit)
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

// exitCode is the command's exit code as a shell reports it.
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
	return exitNotFound
}
