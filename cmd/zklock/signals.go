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
	syscall.SIGIO: "SIGIO",
}

// signalName is "SIGTERM" for SIGTERM, "signal 34" for one it does not know.
func signalName(s syscall.Signal) string {
	if n, ok := signalNames[s]; ok {
		return n
	}
	return fmt.Sprintf("signal %d", int(s))
}

// caught are the signals whose default action would end zklock and that
// a process can catch. Each is passed on to the command rather than
// ending zklock: a zklock that died of one would leave its command running
// while the lock lapsed with the session, one session timeout later, and
// the next zklock would run beside it. (KILL and STOP cannot be caught;
// SEGV, BUS, FPE, ILL and TRAP come from faults, and ABRT and SYS also
// dump core: those stay fatal.)
var caught = []os.Signal{
	syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGPIPE, syscall.SIGALRM,
	syscall.SIGVTALRM, syscall.SIGXCPU, syscall.SIGXFSZ, syscall.SIGIO,
}

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
