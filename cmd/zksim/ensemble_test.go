package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zksim/zksim/internal/ensemble"
	"github.com/zksim/zksim/internal/longtest"
	"github.com/zksim/zksim/simcli"
)

// -ensemble is refused with -servers, out of range, and with the flags
// of simulated runs (exit 2); servers that cannot start are a run that
// could not run (exit 3), with the reason.
func TestRunEnsemble_BadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-ensemble", "3", "-servers", "127.0.0.1:1"}, "-ensemble and -servers: choose one"},
		{[]string{"run", "-servers", "127.0.0.1:1", "-ensemble", "1"}, "-ensemble and -servers: choose one"},
		{[]string{"run", "-ensemble", "0"}, "-ensemble must be between 1 and 9, got 0"},
		{[]string{"run", "-ensemble", "10"}, "-ensemble must be between 1 and 9, got 10"},
		{[]string{"run", "-ensemble", "3", "-strategy", "pct"}, "-strategy: for simulated runs only, not with -ensemble"},
		{[]string{"run", "-ensemble", "3", "-faults", "reap=1"}, "fault refused on real servers: reap"},
		{[]string{"run", "-hold", "5ms"}, "-hold: for real runs only (-servers or -ensemble)"},
		{[]string{"run", "-ensemble", "3", "-hold", "0s"}, "-hold must be between 1ms and 10s, got 0s"},
		{[]string{"run", "-ensemble", "3", "-hold", "11s"}, "-hold must be between 1ms and 10s, got 11s"},
		{[]string{"run", "-ensemble", "3", "-recipe", "barrier", "-hold", "5ms"}, "-hold: not with the barrier recipe barrier"},
	} {
		var errb bytes.Buffer
		if code := run(tc.args, io.Discard, &errb); code != simcli.ExitUsage || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, %q; want %d saying %q", tc.args, code, errb.String(), simcli.ExitUsage, tc.want)
		}
	}
	t.Setenv("ZK_JAVA", "/nonexistent/java")
	var errb bytes.Buffer
	if code := run([]string{"run", "-ensemble", "1"}, io.Discard, &errb); code != simcli.ExitCouldNotRun ||
		!strings.Contains(errb.String(), "cannot start the servers (none is left running)") || !strings.Contains(errb.String(), "no java at /nonexistent/java") {
		t.Errorf("no java: exit %d, %q", code, errb.String())
	}
}

// Ctrl-C in the middle of a run on a standalone server it started, and
// while it starts the server: the run stops with exit 130
// (ExitInterrupted) and no server or file of it is left.
// TestRunEnsemble_SignalsStopEveryServer does the same for three
// servers, SIGTERM and SIGKILL too (a long test).
func TestRunEnsemble_CtrlCStopsTheServer(t *testing.T) {
	skipWithoutZooKeeper(t)
	args := []string{"run", "-ensemble", "1", "-clients", "2", "-acquisitions", "100"}
	t.Run("running", func(t *testing.T) { signalAt(t, args, midRun, syscall.SIGINT) })
	t.Run("starting", func(t *testing.T) { signalAt(t, args, "starting 1 ZooKeeper server(s)", syscall.SIGINT) })
}

// The README's command that runs a recipe on a real 3-node ensemble,
// stopped in the middle by SIGINT and by SIGTERM: exit 130 and no server
// of the run left running either way; killed by SIGKILL, which no Go
// code sees: the kernel ends the servers (Linux's parent-death signal),
// though their directory stays.
func TestRunEnsemble_SignalsStopEveryServer(t *testing.T) {
	longtest.Skip(t)
	skipWithoutZooKeeper(t)
	var args []string
	for _, line := range docCommands(t, "go run ./cmd/zksim run ") {
		if line.file == "README.md" && strings.Contains(line.text, "-ensemble 3") {
			cmd, _, _ := strings.Cut(line.text, "#")
			args = strings.Fields(cmd)
		}
	}
	if args == nil {
		t.Fatal("the README shows no zksim run -ensemble 3 command")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			signalAt(t, append(append([]string{"run"}, args...), "-acquisitions", "100"), midRun, sig)
		})
	}
}

func skipWithoutZooKeeper(t *testing.T) {
	t.Helper()
	if err := ensemble.Installed(ensemble.Options{N: 1}); err != nil {
		t.Skipf("needs Java and Debian's zookeeper package: %v", err)
	}
}

// midRun is in the run's header, printed once the servers serve, as
// the workload starts.
const midRun = " on real servers 127.0.0.1:"

// signalAt runs the zksim binary with args and its temporary directory
// in a directory of the test's, sends sig once a line of its output
// (stdout or stderr) holds marker, and checks the exit code and that no
// process or file of the run is left.
func signalAt(t *testing.T, args []string, marker string, sig syscall.Signal) {
	bin := zksimBinary(t)
	tmp := t.TempDir()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	err = cmd.Start()
	pw.Close()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	header := make(chan bool, 1)
	var output bytes.Buffer // written by the goroutine until done
	go func() {
		sc := bufio.NewScanner(pr)
		seen := false
		for sc.Scan() {
			output.WriteString(sc.Text() + "\n")
			if !seen && strings.Contains(sc.Text(), marker) {
				seen = true
				header <- true
			}
		}
		close(header)
		pr.Close()
		done <- cmd.Wait()
	}()
	defer func() {
		cmd.Process.Kill()
		<-done
	}()
	select {
	case ok := <-header:
		if !ok {
			t.Fatalf("zksim %v ended before printing %q:\n%s", args, marker, output.String()) // written before the close
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("zksim %v: no %q after 2 minutes", args, marker)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	var exit *exec.ExitError
	select {
	case err := <-done:
		if sig != syscall.SIGKILL && (!errors.As(err, &exit) || exit.ExitCode() != simcli.ExitInterrupted) {
			t.Errorf("zksim %v after %v: %v, want exit %d\n%s", args, sig, err, simcli.ExitInterrupted, output.String())
		}
		done <- err
	case <-time.After(time.Minute):
		t.Fatalf("zksim %v still running a minute after %v", args, sig)
	}
	if sig == syscall.SIGKILL {
		// The kernel signals the JVMs as zksim dies; they exit a moment
		// later, with nothing to wait on but /proc.
		awaitNone(t, tmp)
		return
	}
	if pids := processesUnder(t, tmp); len(pids) > 0 {
		t.Errorf("processes of %s left running after zksim exited: %v", tmp, pids)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
		t.Errorf("zksim left %v in its temporary directory", entries)
	}
}

// awaitNone polls /proc until no process runs under dir, for at most 10 s.
func awaitNone(t *testing.T, dir string) {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for len(processesUnder(t, dir)) > 0 {
		select {
		case <-deadline:
			t.Fatalf("processes of %s still running 10s after zksim was killed: %v", dir, processesUnder(t, dir))
		case <-tick.C:
		}
	}
}

// processesUnder are the live processes whose command line names a file
// under dir.
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
		stat, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		_, state, _ := strings.Cut(string(stat), ") ")
		if strings.Contains(string(cmdline), dir+string(os.PathSeparator)) && !strings.HasPrefix(state, "Z") {
			pids = append(pids, pid)
		}
	}
	return pids
}
