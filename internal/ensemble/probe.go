package ensemble

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// Four-letter commands' timing: a live server answers in milliseconds;
// a paused one never does.
const (
	probeTimeout = time.Second
	pollEvery    = 50 * time.Millisecond
)

// errTimedOut is the cause of a wait that Options.Timeout ended.
var errTimedOut = errors.New("timed out")

// fourLetter sends a four-letter command to addr and returns the answer.
func fourLetter(addr, cmd string) (string, error) {
	conn, err := net.DialTimeout("tcp", addr, probeTimeout)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(probeTimeout)); err != nil {
		return "", err
	}
	if _, err := io.WriteString(conn, cmd); err != nil {
		return "", err
	}
	out, err := io.ReadAll(conn)
	return string(out), err
}

// mode is the Mode line of addr's srvr answer: "leader", "follower",
// "standalone", "observer"; "" while it does not serve.
func mode(addr string) string {
	out, err := fourLetter(addr, "srvr")
	if err != nil {
		return ""
	}
	for line := range strings.Lines(out) {
		if v, ok := strings.CutPrefix(line, "Mode:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// ours reports whether the server answering on m's client port is m's
// own: its conf answer names m's data directory.
func (m *member) ours() bool {
	out, err := fourLetter(m.addr, "conf")
	return err == nil && strings.Contains(out, "dataDir="+m.data)
}

// probe is m's mode once its own process serves, "" while it does not
// yet, or an error when it never will: its process exited, or a port of
// its config is taken. e.mu need not be held: p is the process awaited.
func (m *member) probe(p *process) (string, error) {
	if strings.Contains(p.logSince(), "Address already in use") {
		return "", fmt.Errorf("%w: member %d (%s, pid %d)%s", ErrPortTaken, m.index, m.addr, p.cmd.Process.Pid, p.logTail())
	}
	if p.exited() {
		return "", fmt.Errorf("%w: member %d (%s, pid %d) exited before serving: %v%s",
			ErrNotServing, m.index, m.addr, p.cmd.Process.Pid, p.cmd.ProcessState, p.logTail())
	}
	md := mode(m.addr)
	if md == "" || !m.ours() {
		return "", nil
	}
	return md, nil
}

// await waits until every member of ms serves (quorum: and the modes are
// one leader and followers, or standalone) within Options.Timeout, ctx
// and the ensemble's life.
func (e *Ensemble) await(ctx context.Context, ms []*member, quorum bool) error {
	ctx, done := e.waitContext(ctx)
	defer done()
	procs := make([]*process, len(ms))
	e.mu.Lock()
	for i, m := range ms {
		procs[i] = m.proc
	}
	e.mu.Unlock()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		pending, modes, err := probeAll(ms, procs)
		if err != nil {
			return err
		}
		if len(pending) == 0 && (!quorum || quorate(modes)) {
			return nil
		}
		select {
		case <-ctx.Done():
			return e.notServing(ctx, ms, procs, pending, modes)
		case <-tick.C:
		}
	}
}

// probeAll probes each member: those not serving yet, the modes of all.
func probeAll(ms []*member, procs []*process) (pending []int, modes []string, err error) {
	modes = make([]string, len(ms))
	for i, m := range ms {
		if modes[i], err = m.probe(procs[i]); err != nil {
			return nil, nil, err
		}
		if modes[i] == "" {
			pending = append(pending, i)
		}
	}
	return pending, modes, nil
}

// quorate: one standalone server, or one leader and the rest followers.
func quorate(modes []string) bool {
	if len(modes) == 1 {
		return modes[0] == "standalone"
	}
	leaders, followers := 0, 0
	for _, md := range modes {
		switch md {
		case "leader":
			leaders++
		case "follower":
			followers++
		}
	}
	return leaders == 1 && followers == len(modes)-1
}

// notServing is await's error once ctx ended: which members did not
// serve, with their logs' last lines.
func (e *Ensemble) notServing(ctx context.Context, ms []*member, procs []*process, pending []int, modes []string) error {
	cause := context.Cause(ctx)
	if errors.Is(cause, errTimedOut) {
		cause = fmt.Errorf("%w after %v", cause, e.opts.Timeout)
	}
	if len(pending) == 0 {
		return fmt.Errorf("%w: no quorum (modes %s): %w", ErrNotServing, strings.Join(modes, ", "), cause)
	}
	var b strings.Builder
	for _, i := range pending {
		m, p := ms[i], procs[i]
		fmt.Fprintf(&b, "\nmember %d (%s, pid %d) not serving:%s", m.index, m.addr, p.cmd.Process.Pid, p.logTail())
	}
	return fmt.Errorf("%w: %w%s", ErrNotServing, cause, b.String())
}

// waitContext is ctx, also ended by Options.Timeout and by Stop.
func (e *Ensemble) waitContext(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	stopped := context.AfterFunc(e.ctx, func() { cancel(ErrStopped) })
	ctx, cancelTimeout := context.WithTimeoutCause(ctx, e.opts.Timeout, errTimedOut)
	return ctx, func() {
		cancelTimeout()
		stopped()
		cancel(nil)
	}
}

// Leader is the index of the member that reports Mode leader (or
// standalone), waiting until one does or ctx ends. Paused and stopped
// members are not asked. Just after a failover two members may both
// say leader for a moment (the old one has not noticed yet): the lower
// index is returned.
func (e *Ensemble) Leader(ctx context.Context) (int, error) {
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		for i, addr := range e.askable() {
			if addr == "" {
				continue
			}
			if md := mode(addr); md == "leader" || md == "standalone" {
				return i, nil
			}
		}
		select {
		case <-ctx.Done():
			return -1, fmt.Errorf("%w: %w", ErrNoLeader, context.Cause(ctx))
		case <-e.ctx.Done():
			return -1, ErrStopped
		case <-tick.C:
		}
	}
}

// askable are the client addresses of the running members that are not
// paused, by index ("" for the others).
func (e *Ensemble) askable() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	addrs := make([]string, len(e.members))
	for i, m := range e.members {
		if m.proc != nil && !m.proc.exited() && !m.paused {
			addrs[i] = m.addr
		}
	}
	return addrs
}

// Mode is member i's Mode as its srvr answer says: "leader", "follower",
// "standalone"; "" while it does not serve (looking for a leader,
// syncing, paused, killed) or i is out of range.
func (e *Ensemble) Mode(i int) string {
	addrs := e.askable()
	if i < 0 || i >= len(addrs) || addrs[i] == "" {
		return ""
	}
	return mode(addrs[i])
}
