package ensemble_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/ensemble"
	"github.com/zksim/zksim/internal/longtest"
)

// start starts an ensemble, skipping the test where ZooKeeper is not
// installed, and stops it when the test ends.
func start(t *testing.T, opts ensemble.Options) *ensemble.Ensemble {
	t.Helper()
	e, err := ensemble.Start(t.Context(), opts)
	if errors.Is(err, ensemble.ErrNotInstalled) {
		t.Skipf("needs Java and Debian's zookeeper package: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Stop() })
	return e
}

// installed skips the test where ZooKeeper is not installed.
func installed(t *testing.T) {
	t.Helper()
	if err := ensemble.Installed(ensemble.Options{N: 1}); err != nil {
		t.Skipf("needs Java and Debian's zookeeper package: %v", err)
	}
}

// Options that cannot start anything are refused before anything
// starts: no java, no jars, no servers, a directory in use.
func TestStart_BadOptions(t *testing.T) {
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opts ensemble.Options
		want error
		says string
	}{
		{ensemble.Options{N: 1, Java: "/nonexistent/java"}, ensemble.ErrNotInstalled, "no java at /nonexistent/java"},
		{ensemble.Options{N: 1, Java: "/bin/sh", JarDir: t.TempDir()}, ensemble.ErrNotInstalled, "no zookeeper.jar in"},
		{ensemble.Options{N: 0}, ensemble.ErrBadOptions, "N must be between 1 and 9, got 0"},
		{ensemble.Options{N: ensemble.MaxN + 1}, ensemble.ErrBadOptions, "N must be between"},
	} {
		if _, err := ensemble.Start(t.Context(), tc.opts); !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("Start(%+v): %v, want %v saying %q", tc.opts, err, tc.want, tc.says)
		}
	}
	installed(t)
	if _, err := ensemble.Start(t.Context(), ensemble.Options{N: 1, Dir: full}); !errors.Is(err, ensemble.ErrBadOptions) || !strings.Contains(err.Error(), "is not empty") {
		t.Errorf("Start in a directory in use: %v", err)
	}
}

// srvrMode asks addr's srvr for its Mode, as an operator would.
func srvrMode(addr string) string {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return ""
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Second))
	io.WriteString(conn, "srvr")
	sc := bufio.NewScanner(conn)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Mode: "); ok {
			return v
		}
	}
	return ""
}

// modes are the members' modes, by index.
func modes(e *ensemble.Ensemble) []string {
	var ms []string
	for _, a := range e.Addrs() {
		ms = append(ms, srvrMode(a))
	}
	return ms
}

// alive reports whether pid is a live process (not a zombie).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// processesUnder are the live processes whose command line names a file
// under dir: the JVMs of an ensemble whose state is in dir.
func processesUnder(t *testing.T, dir string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("needs /proc: %v", err)
	}
	var pids []int
	for _, d := range entries {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if strings.Contains(string(cmdline), dir+string(os.PathSeparator)) && alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// await polls cond until it holds or 30 s have passed: the real
// servers' state has no event to wait on.
func await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("not %s after 30s", what)
		case <-tick.C:
		}
	}
}

// A standalone server: it serves and leads; a paused one is not asked
// for the leader; a killed one is gone and restarts on its address;
// Stop ends its process, removes the temporary directory, and is
// idempotent; then every operation says it is stopped.
func TestStart_Standalone(t *testing.T) {
	installed(t)
	e := start(t, ensemble.Options{N: 1})
	dir := e.Dir()
	if got := modes(e); len(got) != 1 || got[0] != "standalone" {
		t.Fatalf("modes %q, want [standalone]", got)
	}
	ctx := t.Context()
	if l, err := e.Leader(ctx); l != 0 || err != nil {
		t.Fatalf("Leader: %d, %v", l, err)
	}
	if err := e.Pause(0); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	if _, err := e.Leader(short); !errors.Is(err, ensemble.ErrNoLeader) {
		t.Errorf("Leader with the only server paused: %v, want ErrNoLeader", err)
	}
	cancel()
	if err := e.Resume(0); err != nil {
		t.Fatal(err)
	}
	pid := e.PID(0)
	if err := e.Kill(0); err != nil || alive(pid) || e.PID(0) != 0 {
		t.Fatalf("Kill: %v; pid %d alive %v, PID() %d", err, pid, alive(pid), e.PID(0))
	}
	if err := e.Kill(0); !errors.Is(err, ensemble.ErrNotRunning) {
		t.Errorf("second Kill: %v, want ErrNotRunning", err)
	}
	if err := e.Restart(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if err := e.Restart(ctx, 0); !errors.Is(err, ensemble.ErrRunning) {
		t.Errorf("Restart of a running server: %v, want ErrRunning", err)
	}
	if m := srvrMode(e.Addrs()[0]); m != "standalone" || e.PID(0) == pid || e.PID(0) == 0 {
		t.Fatalf("after Restart: mode %q, PID %d (was %d)", m, e.PID(0), pid)
	}
	pid = e.PID(0)
	if err := e.Stop(); err != nil {
		t.Fatal(err)
	}
	if alive(pid) {
		t.Errorf("server pid %d alive after Stop", pid)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Stop left %s: %v", dir, err)
	}
	if err := e.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	for name, err := range map[string]error{"Pause": e.Pause(0), "Kill": e.Kill(0), "Restart": e.Restart(ctx, 0)} {
		if !errors.Is(err, ensemble.ErrStopped) {
			t.Errorf("%s after Stop: %v, want ErrStopped", name, err)
		}
	}
	if err := e.Pause(1); !errors.Is(err, ensemble.ErrBadIndex) {
		t.Errorf("Pause(1) of 1 member: %v, want ErrBadIndex", err)
	}
}

// takenPorts chooses free ports but gives member 1 (a standalone
// server: member 0) a client port the test holds open, on the first bad
// attempts (all: -1).
func takenPorts(t *testing.T, bad int) func(int) ([]int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	held := l.Addr().(*net.TCPAddr).Port
	calls := 0
	return func(n int) ([]int, error) {
		ports, err := ensemble.FreePorts(n)
		if calls++; err == nil && (bad < 0 || calls <= bad) {
			ports[3*min(1, n/3-1)] = held
		}
		return ports, err
	}
}

// A start that fails leaves nothing running: not the JVMs that did
// start (members 0 and 2, while member 1 finds its client port taken),
// and the error names the member and quotes its log.
func TestStart_FailureLeavesNothing(t *testing.T) {
	installed(t)
	dir := t.TempDir()
	opts := ensemble.WithPorts(ensemble.Options{N: 3, Dir: dir}, takenPorts(t, -1), 1)
	e, err := ensemble.Start(t.Context(), opts)
	if errors.Is(err, ensemble.ErrNotInstalled) {
		t.Skipf("needs Java and Debian's zookeeper package: %v", err)
	}
	if e != nil || !errors.Is(err, ensemble.ErrPortTaken) {
		t.Fatalf("Start with a port taken: %v, %v; want ErrPortTaken", e, err)
	}
	t.Logf("Start: %v", err)
	for _, want := range []string{"member 1 (127.0.0.1:", "last lines of " + filepath.Join(dir, "member1", "log"), "Address already in use"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
	if pids := processesUnder(t, dir); len(pids) > 0 {
		t.Errorf("processes of %s left running: %v", dir, pids)
	}
}

// A JVM that exits at once (a bad option) fails the start with its own
// words, and nothing is left; a port taken on the first attempt is
// retried with fresh ports.
func TestStart_ExitAndRetry(t *testing.T) {
	installed(t)
	dir := t.TempDir()
	_, err := ensemble.Start(t.Context(), ensemble.Options{N: 2, Dir: dir, JVMFlags: []string{"-XX:+NoSuchOptionAtAll"}})
	if !errors.Is(err, ensemble.ErrNotServing) || !strings.Contains(err.Error(), "exited before serving") || !strings.Contains(err.Error(), "NoSuchOptionAtAll") {
		t.Errorf("Start with a bad JVM option: %v", err)
	}
	t.Logf("Start: %v", err)
	if pids := processesUnder(t, dir); len(pids) > 0 {
		t.Errorf("processes of %s left running: %v", dir, pids)
	}
	e := start(t, ensemble.WithPorts(ensemble.Options{N: 1}, takenPorts(t, 1), 2))
	if got := modes(e); len(got) != 1 || got[0] != "standalone" {
		t.Errorf("after a retry: modes %q", got)
	}
}

// Three servers: a quorum (one leader, two followers) that Leader
// agrees with; a paused leader is replaced and rejoins as a follower
// when resumed; a killed follower is gone and restarts; Stop from two
// goroutines at once leaves no process of the ensemble. One ensemble
// for every step: each start costs seconds of JVM start.
func TestEnsemble_ThreeMembers(t *testing.T) {
	longtest.Skip(t)
	dir := t.TempDir()
	e := start(t, ensemble.Options{N: 3, Dir: dir})
	// A bound on every wait below, so that a broken Pause or Leader fails
	// the test rather than hanging it.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if e.Len() != 3 || len(e.Addrs()) != 3 {
		t.Fatalf("Len %d, Addrs %v", e.Len(), e.Addrs())
	}
	leader, err := e.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ms := modes(e)
	for i, m := range ms {
		if want := map[bool]string{true: "leader", false: "follower"}[i == leader]; m != want {
			t.Errorf("member %d: mode %q, want %q (Leader %d; modes %q)", i, m, want, leader, ms)
		}
	}

	if err := e.Pause(leader); err != nil {
		t.Fatal(err)
	}
	next, err := e.Leader(ctx)
	if err != nil || next == leader {
		t.Fatalf("Leader with %d paused: %d, %v", leader, next, err)
	}
	if err := e.Resume(leader); err != nil {
		t.Fatal(err)
	}
	await(t, "rejoined as a follower", func() bool { return srvrMode(e.Addrs()[leader]) == "follower" })

	follower := (next + 1) % 3
	pid := e.PID(follower)
	if err := e.Kill(follower); err != nil || alive(pid) {
		t.Fatalf("Kill(%d): %v; pid %d alive %v", follower, err, pid, alive(pid))
	}
	if l, err := e.Leader(ctx); l != next || err != nil {
		t.Errorf("Leader after a follower's kill: %d, %v; want %d", l, err, next)
	}
	if err := e.Restart(ctx, follower); err != nil {
		t.Fatal(err)
	}
	if m := srvrMode(e.Addrs()[follower]); m != "follower" || e.PID(follower) == pid {
		t.Errorf("restarted member %d: mode %q, pid %d (was %d)", follower, m, e.PID(follower), pid)
	}

	pids := []int{e.PID(0), e.PID(1), e.PID(2)}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if err := e.Stop(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for i, pid := range pids {
		if pid == 0 || alive(pid) {
			t.Errorf("member %d: pid %d before Stop, alive after: %v", i, pid, alive(pid))
		}
	}
	if left := processesUnder(t, dir); len(left) > 0 {
		t.Errorf("processes of %s left running: %v", dir, left)
	}
	if _, err := os.Stat(filepath.Join(dir, "member0", "log")); err != nil {
		t.Errorf("Stop removed the logs of a Dir it was given: %v", err)
	}
}
