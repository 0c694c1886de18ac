//go:build unix && !linux

package ensemble

import "syscall"

// sysProcAttr puts each JVM in a process group of its own, so that a
// terminal's Ctrl-C reaches only the Go program, which stops the
// servers in order. Outside Linux there is no parent-death signal: a
// Go program killed with SIGKILL leaves its servers running.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
