//go:build unix

package zktest

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
	"testing"
)

func kill(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }

// processAlive reports whether pid runs with cfg among its arguments. A
// zombie is dead: the JVM is reparented when scripts/zk.sh exits, and not
// every init reaps at once. Where /proc is missing (macOS) only existence
// is checked.
func processAlive(pid int, cfg string) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	proc := "/proc/" + strconv.Itoa(pid)
	stat, err := os.ReadFile(proc + "/stat")
	if errors.Is(err, os.ErrNotExist) {
		_, statErr := os.Stat("/proc/self")
		return statErr != nil // no procfs: trust kill(0)
	}
	if err != nil || zombie(stat) {
		return false
	}
	cmdline, err := os.ReadFile(proc + "/cmdline")
	if err != nil {
		return false
	}
	for _, arg := range bytes.Split(cmdline, []byte{0}) {
		if string(arg) == cfg {
			return true
		}
	}
	return false
}

// zombie parses /proc/PID/stat, "pid (comm) S ...", where comm may itself
// contain ") ".
func zombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

// lockFile takes a shared or exclusive flock on path until t ends.
func lockFile(t testing.TB, path string, exclusive bool) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatalf("zktest: %v", err)
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		t.Fatalf("zktest: lock %s: %v", path, err)
	}
	t.Cleanup(func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	})
}
