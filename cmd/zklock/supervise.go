package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// ran is how the command went.
type ran struct {
	started bool
	code    int       // exit code, 128+S for signal S; 126 or 127 if not started
	err     error     // exec's: what ended it
	lost    error     // the loss of the lock zklock heard of while it ran
	held    os.Signal // with no command: the signal that ended the hold
	none    bool      // there was no command: zklock held until a signal
}

// describe says how the command ended: "exited 3", "was terminated by
// SIGTERM".
func (r ran) describe() string {
	switch {
	case r.none && r.held != nil:
		return "was none; zklock held until " + osSignalName(r.held)
	case r.none:
		return "was none; zklock was holding"
	}
	var ee *exec.ExitError
	if errors.As(r.err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "was terminated by " + signalName(ws.Signal())
		}
	}
	return fmt.Sprintf("exited %d", r.code)
}

// supervise runs the command while watching the lease: if the session is
// lost, or zklock has been out of contact long enough that the server may
// have expired it (see contact), it sends the command -signal, and
// SIGKILL -kill-after later. Every signal zklock catches is passed on to
// the command, and the lock stays held until the command has exited.
// With no command, zklock prints the node and token and holds until a
// signal.
func supervise(ctx context.Context, conn zkapi.Conn, o options, l recipe.Lease, token int64, sigs <-chan os.Signal, stdin io.Reader, stdout, stderr io.Writer) ran {
	if len(o.command) == 0 {
		return hold(ctx, conn, o, l, token, sigs, stdout)
	}
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
	lost, stopWatch := watchLease(ctx, conn, o, l)
	defer stopWatch()

	r := ran{started: true}
	for {
		select {
		case err := <-exited:
			r.code, r.err = exitCode(err), err
			return r
		case err := <-lost:
			if errors.Is(err, context.Canceled) || r.lost != nil {
				continue
			}
			r.lost = err
			kill(cmd.Process, o, err, stderr)
		case s := <-sigs:
			cmd.Process.Signal(s)
		}
	}
}

// watchLease reports on lost how the lease was lost: the session's end
// as the client hears of it (Wait), or a silence that lasted until the
// server may soon expire the session (contact), whichever comes first.
func watchLease(ctx context.Context, conn zkapi.Conn, o options, l recipe.Lease) (<-chan error, context.CancelFunc) {
	lost := make(chan error, 2)
	watch, stop := context.WithCancel(ctx)
	go func() { lost <- l.Wait(watch) }()
	go func() { lost <- contact(watch, conn, l.Node(), o.session) }()
	return lost, stop
}

// hold is supervise without a command: it prints the lock node and token
// as ZKLOCK_NODE= and ZKLOCK_TOKEN= lines, then holds until a signal
// (exit 0 once released) or until the lease is lost (exit 4).
func hold(ctx context.Context, conn zkapi.Conn, o options, l recipe.Lease, token int64, sigs <-chan os.Signal, stdout io.Writer) ran {
	fmt.Fprintf(stdout, "ZKLOCK_NODE=%s\nZKLOCK_TOKEN=%d\n", l.Node(), token)
	lost, stopWatch := watchLease(ctx, conn, o, l)
	defer stopWatch()
	for {
		select {
		case s := <-sigs:
			return ran{started: true, none: true, held: s}
		case err := <-lost:
			if !errors.Is(err, context.Canceled) {
				return ran{started: true, none: true, lost: err}
			}
		}
	}
}

// errNoContact: zklock heard nothing from the ensemble for so long that
// the server may soon expire the session and grant the lock to another;
// the command must stop, as on an expiry.
var errNoContact = errors.New("no answer from ZooKeeper")

// contact returns errNoContact once no probe sent in the last half
// of the session timeout has been answered. It does not wait for the
// client library to notice a silent link (go-zookeeper may take longer
// than the session timeout), nor to hear of an expiry it may never hear
// of: the server expires the session a session timeout after it last
// heard from us, which is after the last answered probe was sent, so
// the command is signalled about a third of the session timeout before
// another can be granted the lock. Each probe is an exists of the lock
// node, one at a time, every tenth of the session timeout.
func contact(ctx context.Context, conn zkapi.Conn, node string, session time.Duration) error {
	tick := time.NewTicker(session / 10)
	defer tick.Stop()
	answered := make(chan time.Time, 1) // the send time of an answered probe; zero if it failed
	probe := func(sent time.Time) {
		_, _, err := conn.Exists(ctx, node)
		if err != nil {
			sent = time.Time{}
		}
		answered <- sent
	}
	last, inflight := time.Now(), false
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case sent := <-answered:
			inflight = false
			if sent.After(last) {
				last = sent
			}
		case <-tick.C:
			// A probe stuck on a silent link blocks until the client
			// library gives up on it: the silence is timed here instead.
			if !inflight {
				inflight = true
				go probe(time.Now())
			}
		}
		if silent := time.Since(last); silent > session/2 {
			return fmt.Errorf("%w for %v (half of -session-timeout)", errNoContact, silent.Round(time.Millisecond))
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
// the lock, within the session timeout. The command's own code stands only
// if the lock is confirmed held after it ended.
func settle(ctx context.Context, conn zkapi.Conn, o options, l recipe.Lease, r ran, stderr io.Writer) int {
	if !r.started {
		release(conn, l, o.session)
		return r.code
	}
	lost := r.lost
	if lost == nil {
		lost = confirm(ctx, conn, l, o.session)
	}
	if lost != nil {
		if errors.Is(lost, errUnconfirmed) || errors.Is(lost, errNoContact) {
			// Out of contact for the session timeout: the server has
			// expired the session, or will as soon as it is back.
			closeWithin(conn, closeGrace)
		} else {
			release(conn, l, o.session)
		}
		fmt.Fprintf(stderr, "zklock: the lock on %s was not held to the end (%v); the command %s; exit %d\n",
			o.path, lost, r.describe(), o.lostExit)
		return o.lostExit
	}
	// Held to the end: a loss from here on cost the command nothing.
	if err := release(conn, l, o.session); err != nil && !errors.Is(err, recipe.ErrLost) {
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
func confirm(ctx context.Context, conn zkapi.Conn, l recipe.Lease, limit time.Duration) error {
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
