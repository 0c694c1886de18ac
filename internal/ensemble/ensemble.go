package ensemble

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Options describe an ensemble to start. The zero value but N is a
// working default.
type Options struct {
	// N is the number of servers: 1 is a standalone server, 2 or more an
	// ensemble (at most MaxN).
	N int
	// Dir holds each member's state (DIR/member<i>); it must be empty or
	// not exist, and is kept by Stop, logs included. "": a temporary
	// directory that Stop removes.
	Dir string
	// Java is the java binary; default $ZK_JAVA, else /usr/bin/java.
	Java string
	// JarDir holds zookeeper.jar, slf4j-log4j12.jar and log4j-1.2.jar;
	// default $ZK_JAVA_DIR, else /usr/share/java.
	JarDir string
	// JVMFlags are extra JVM options, e.g. -Dzookeeper.extendedTypesEnabled=true.
	JVMFlags []string
	// Config are extra zoo.cfg lines, e.g. reconfigEnabled=true.
	Config []string
	// Timeout bounds Start's wait for a quorum and Restart's for its
	// member to serve; default 60s (three JVMs starting on two busy
	// cores have taken over 20s).
	Timeout time.Duration
	// Grace is how long Stop waits after SIGTERM before SIGKILL; default 5s.
	Grace time.Duration

	ports    func(n int) ([]int, error) // tests: the port chooser; nil: freePorts
	attempts int                        // tests: port sets tried; 0: portAttempts
}

// MaxN bounds Options.N: more JVMs than that do not fit a test machine.
const MaxN = 9

// portAttempts is how many port sets Start tries when a port it chose
// was taken before a server could bind it.
const portAttempts = 3

// Ensemble is a set of running ZooKeeper servers and their processes.
type Ensemble struct {
	opts    Options
	dir     string
	ownDir  bool // Dir was made by Start: Stop removes it
	members []*member
	peers   *peerNet        // the links between members; nil for one
	ctx     context.Context // ended by Stop: ends a Restart's wait
	cancel  context.CancelCauseFunc

	mu      sync.Mutex // guards members' processes and paused flags, and stopped
	stopped bool

	stopOnce sync.Once
	stopErr  error
}

// Start starts opts.N servers and returns once a quorum serves. On an
// error nothing it started is left running.
func Start(ctx context.Context, opts Options) (*Ensemble, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	dir, own, err := stateDir(o.Dir)
	if err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		e, err := start(ctx, o, dir, own)
		if err == nil {
			return e, nil
		}
		if !errors.Is(err, ErrPortTaken) || attempt >= o.attempts || ctx.Err() != nil {
			if own {
				os.RemoveAll(dir)
			}
			return nil, err
		}
	}
}

// Installed says whether the java and the jars opts name (or the
// defaults) exist: nil, or an error wrapping ErrNotInstalled (or
// ErrBadOptions) that says what is missing.
func Installed(opts Options) error {
	_, err := opts.resolve()
	return err
}

// resolve fills in the defaults and checks that java and the jars exist.
func (o Options) resolve() (Options, error) {
	if o.N < 1 || o.N > MaxN {
		return o, fmt.Errorf("%w: N must be between 1 and %d, got %d", ErrBadOptions, MaxN, o.N)
	}
	o.Java = firstSet(o.Java, os.Getenv("ZK_JAVA"), "/usr/bin/java")
	o.JarDir = firstSet(o.JarDir, os.Getenv("ZK_JAVA_DIR"), "/usr/share/java")
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.Grace <= 0 {
		o.Grace = 5 * time.Second
	}
	if o.ports == nil {
		o.ports = freePorts
	}
	if o.attempts <= 0 {
		o.attempts = portAttempts
	}
	if st, err := os.Stat(o.Java); err != nil || st.IsDir() {
		return o, fmt.Errorf("%w: no java at %s (ZK_JAVA)", ErrNotInstalled, o.Java)
	}
	for _, jar := range jars {
		if _, err := os.Stat(filepath.Join(o.JarDir, jar)); err != nil {
			return o, fmt.Errorf("%w: no %s in %s (ZK_JAVA_DIR; apt-get install zookeeper)", ErrNotInstalled, jar, o.JarDir)
		}
	}
	return o, nil
}

func firstSet(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// stateDir makes the directory members live in: dir, which must be
// empty or absent, or a new temporary one (own).
func stateDir(dir string) (string, bool, error) {
	if dir == "" {
		d, err := os.MkdirTemp("", "zksim-ensemble-")
		if err != nil {
			return "", false, fmt.Errorf("ensemble: %w", err)
		}
		return d, true, nil
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", false, fmt.Errorf("ensemble: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", false, fmt.Errorf("ensemble: %w", err)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) > 0 {
		return "", false, fmt.Errorf("%w: Dir %s is not empty (or unreadable: %v)", ErrBadOptions, dir, err)
	}
	return dir, false, nil
}

// start is one attempt of Start with fresh ports: on an error it has
// stopped what it started (and left dir for the next attempt).
func start(ctx context.Context, o Options, dir string, own bool) (*Ensemble, error) {
	ports, err := o.ports(3 * o.N)
	if err != nil {
		return nil, err
	}
	e := &Ensemble{opts: o, dir: dir, ownDir: own}
	if o.N > 1 {
		if e.peers, err = newPeerNet(o.N, ports); err != nil {
			return nil, err
		}
	}
	e.ctx, e.cancel = context.WithCancelCause(context.Background())
	for i := range o.N {
		m, err := newMember(dir, i, o, ports, e.peers)
		if err != nil {
			e.peers.close()
			return nil, err
		}
		e.members = append(e.members, m)
	}
	e.mu.Lock()
	for _, m := range e.members {
		if err = e.launch(m); err != nil {
			break
		}
	}
	e.mu.Unlock()
	if err == nil {
		err = e.await(ctx, e.members, true)
	}
	if err != nil {
		e.stopProcesses()
		return nil, err
	}
	return e, nil
}

// Stop stops every member's process, waits until each has exited, and
// removes the directory Start made. It is idempotent and safe from any
// goroutine; a later call returns the first call's result.
func (e *Ensemble) Stop() error {
	e.stopOnce.Do(func() {
		e.stopProcesses()
		if e.ownDir {
			e.stopErr = os.RemoveAll(e.dir)
		}
	})
	return e.stopErr
}

// stopProcesses ends a pending Restart's wait, refuses further
// operations, and terminates every process, all at once; then closes
// the links between them.
func (e *Ensemble) stopProcesses() {
	e.cancel(ErrStopped)
	e.mu.Lock()
	e.stopped = true
	var running []*process
	for _, m := range e.members {
		if m.proc != nil {
			running = append(running, m.proc)
		}
	}
	e.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range running {
		wg.Go(func() { p.terminate(e.opts.Grace) })
	}
	wg.Wait()
	e.peers.close()
}

// Len is the number of members.
func (e *Ensemble) Len() int { return len(e.members) }

// Dir is the directory the members' configs, data and logs are in.
func (e *Ensemble) Dir() string { return e.dir }

// Addrs are the members' client addresses (host:port), by index.
func (e *Ensemble) Addrs() []string {
	addrs := make([]string, len(e.members))
	for i, m := range e.members {
		addrs[i] = m.addr
	}
	return addrs
}

// PID is the process ID of member i's running server; 0 when it has
// none (killed, exited, stopped) or i is out of range.
func (e *Ensemble) PID(i int) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if i < 0 || i >= len(e.members) {
		return 0
	}
	if p := e.members[i].proc; p != nil && !p.exited() {
		return p.cmd.Process.Pid
	}
	return 0
}

// Pause stops member i with SIGSTOP: its sockets stay open and nothing
// answers, as on a long GC pause or a frozen VM.
func (e *Ensemble) Pause(i int) error { return e.signal(i, sigStop, true) }

// Resume continues member i after Pause (SIGCONT).
func (e *Ensemble) Resume(i int) error { return e.signal(i, sigCont, false) }

func (e *Ensemble) signal(i int, sig os.Signal, paused bool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	m, err := e.running(i)
	if err != nil {
		return err
	}
	if sig == nil {
		return fmt.Errorf("%w: pausing a process", ErrUnsupported)
	}
	if err := m.proc.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("ensemble: member %d: %v: %w", i, sig, err)
	}
	m.paused = paused
	return nil
}

// Kill ends member i with SIGKILL, as on a crash, and waits for it to
// exit.
func (e *Ensemble) Kill(i int) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	m, err := e.running(i)
	if err != nil {
		return err
	}
	m.proc.kill()
	m.proc, m.paused = nil, false
	return nil
}

// Restart starts member i again with the same config and ports after
// Kill (or after its process exited), and returns once it serves. A
// restart that does not serve in Options.Timeout is stopped again.
func (e *Ensemble) Restart(ctx context.Context, i int) error {
	e.mu.Lock()
	m, err := e.member(i)
	switch {
	case err != nil:
	case e.stopped:
		err = ErrStopped
	case m.proc != nil && !m.proc.exited():
		err = fmt.Errorf("%w: member %d (pid %d)", ErrRunning, i, m.proc.cmd.Process.Pid)
	default:
		err = e.launch(m)
	}
	p := m.procOrNil()
	e.mu.Unlock()
	if err != nil {
		return err
	}
	if err := e.await(ctx, []*member{m}, false); err != nil {
		e.mu.Lock()
		if m.proc == p {
			m.proc = nil
		}
		e.mu.Unlock()
		p.terminate(e.opts.Grace)
		return err
	}
	return nil
}

// member is member i, or ErrBadIndex.
func (e *Ensemble) member(i int) (*member, error) {
	if i < 0 || i >= len(e.members) {
		return nil, fmt.Errorf("%w: %d (members 0..%d)", ErrBadIndex, i, len(e.members)-1)
	}
	return e.members[i], nil
}

// running is member i if its process runs; e.mu is held.
func (e *Ensemble) running(i int) (*member, error) {
	m, err := e.member(i)
	switch {
	case err != nil:
		return nil, err
	case e.stopped:
		return nil, ErrStopped
	case m.proc == nil || m.proc.exited():
		return nil, fmt.Errorf("%w: member %d (%s)", ErrNotRunning, i, m.addr)
	}
	return m, nil
}

// Isolate cuts member i off from the other members, as a network
// partition would: its connections to and from their quorum and election
// ports are closed, and new ones are hung up on at once, until Heal. Its
// clients' connections are untouched: an isolated leader loses its
// quorum and stops serving them, and the others elect a new leader.
func (e *Ensemble) Isolate(i int) error { return e.isolate(i, true) }

// Heal undoes Isolate: member i's links are let through again and it
// rejoins the quorum.
func (e *Ensemble) Heal(i int) error { return e.isolate(i, false) }

func (e *Ensemble) isolate(i int, on bool) error {
	if err := e.peerOp(i); err != nil {
		return err
	}
	e.peers.isolate(i, on)
	return nil
}

// Lag holds for d what member i receives on the quorum links it opened,
// forwarding nothing until d has passed, then all of it in order. A
// follower's one such link is its leader's stream of proposals, commits
// and pings: the follower stays in the quorum (d is at most MaxLag) but
// applies nothing meanwhile, so its clients read an old tree (a stale
// read) while a write elsewhere has succeeded. A leader opens no quorum
// links: on it, Lag holds nothing. Lag returns at once; Lag(i, 0)
// releases a lag at once.
func (e *Ensemble) Lag(i int, d time.Duration) error {
	if d < 0 || d > MaxLag {
		return fmt.Errorf("%w: Lag of %v: it must be in [0, %v], or the leader drops the follower", ErrBadOptions, d, MaxLag)
	}
	if err := e.peerOp(i); err != nil {
		return err
	}
	e.peers.hold(i, time.Now().Add(d))
	return nil
}

// peerOp checks that member i's peer links can be acted on.
func (e *Ensemble) peerOp(i int) error {
	if _, err := e.member(i); err != nil {
		return err
	}
	e.mu.Lock()
	stopped := e.stopped
	e.mu.Unlock()
	switch {
	case stopped:
		return ErrStopped
	case e.peers == nil:
		return ErrNoPeers
	}
	return nil
}
