package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// signalNames spells the signals a command is likely to die of as shells
// and kill(1) do; Go's Signal.String gives strsignal's "terminated",
// which reads badly in "sending terminated".
var signalNames = map[syscall.Signal]string{
	syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
	syscall.SIGILL: "SIGILL", syscall.SIGTRAP: "SIGTRAP", syscall.SIGABRT: "SIGABRT",
	syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE", syscall.SIGKILL: "SIGKILL",
	syscall.SIGUSR1: "SIGUSR1", syscall.SIGSEGV: "SIGSEGV", syscall.SIGUSR2: "SIGUSR2",
	syscall.SIGPIPE: "SIGPIPE", syscall.SIGALRM: "SIGALRM", syscall.SIGTERM: "SIGTERM",
	syscall.SIGVTALRM: "SIGVTALRM", syscall.SIGXCPU: "SIGXCPU", syscall.SIGXFSZ: "SIGXFSZ",
	syscall.SIGIO: "SIGIO", syscall.SIGSYS: "SIGSYS",
}

// signalName is "SIGTERM" for SIGTERM, "signal 34" for one it does not know.
func signalName(s syscall.Signal) string {
	if n, ok := signalNames[s]; ok {
		return n
	}
	if n, ok := osSignalNames[s]; ok {
		return n
	}
	return fmt.Sprintf("signal %d", int(s))
}

// caught are the signals whose default action ends a process (signal(7))
// and that Go lets a program catch. Each is passed on to the command
// rather than ending zklock: a zklock that died of one would leave its
// command running while the lock lapsed with the session, one session
// timeout later, and the next zklock would run beside it. (Left to Go's
// defaults, ABRT, SYS, STKFLT and the faults end zklock with a stack
// dump, and USR1, PWR and the real-time ones are dropped, never reaching
// the command.)
//
// SEGV, BUS, FPE, ILL and TRAP are among them: Go delivers to os/signal
// only those another process sent (kill(2)); a fault of zklock's own
// still crashes it. Left out: KILL and STOP, which cannot be caught;
// PROF, which Go's runtime keeps for profiling (zklock does not die of
// it); and on Linux 32, 33 and 34 (see signals_linux.go).
var caught = append([]os.Signal{
	syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGILL,
	syscall.SIGTRAP, syscall.SIGABRT, syscall.SIGBUS, syscall.SIGFPE,
	syscall.SIGUSR1, syscall.SIGSEGV, syscall.SIGUSR2, syscall.SIGPIPE,
	syscall.SIGALRM, syscall.SIGTERM, syscall.SIGXCPU, syscall.SIGXFSZ,
	syscall.SIGVTALRM, syscall.SIGIO, syscall.SIGSYS,
}, osCaught()...)

// catch routes every signal of caught to a channel for the rest of run.
func catch() (<-chan os.Signal, func()) {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, caught...)
	return sigs, func() { signal.Stop(sigs) }
}

// signalExit is the exit code of a process ended by s, as a shell gives.
func signalExit(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 128
}

// osSignalName is signalName for an os.Signal.
func osSignalName(s os.Signal) string {
	if n, ok := s.(syscall.Signal); ok {
		return signalName(n)
	}
	return s.String()
}
