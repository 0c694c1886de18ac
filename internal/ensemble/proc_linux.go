package ensemble

import "syscall"

// sysProcAttr puts each JVM in a process group of its own, so that a
// terminal's Ctrl-C (sent to the foreground group) reaches only the Go
// program, which stops the servers in order (SIGTERM, then SIGKILL) and
// writes its reports; and asks the kernel to SIGKILL the JVM when the
// Go program dies (Pdeathsig), which covers what no Go code can: a
// SIGKILL of the program, a second Ctrl-C after the signal handler let
// go, a panic in a goroutine. The kernel ties Pdeathsig to the thread
// that forked, not the process: Go never ends an unlocked thread, so
// this holds unless Start or Restart is called from a goroutine that
// has locked its thread (runtime.LockOSThread) and then exits.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
