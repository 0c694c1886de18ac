package main

import (
	"os"
	"syscall"
)

// Linux's real-time signals: the kernel's 32 to 64. glibc keeps 32 and 33
// for its threads (its SIGRTMIN is 34), musl keeps 34 as well, and Go's
// runtime follows both: os/signal cannot catch 32 to 34 (Go sets no
// handler for 32 and 34, and takes 33 for itself without cgo). Sent to
// zklock, 33 is ignored (by Go's runtime, or by glibc's handler) while 32
// and 34 end it by their default action, as they end any Go program
// (measured; docs/zklock.md's signal table says so). From 35 on, each is
// caught and passed on.
const (
	firstCatchableRT = 35
	lastRT           = 64
)

// osCaught are the signals beyond POSIX's whose default action ends a
// process on Linux: STKFLT, PWR and the real-time signals Go lets
// os/signal catch.
func osCaught() []os.Signal {
	sigs := []os.Signal{syscall.SIGSTKFLT, syscall.SIGPWR}
	for n := firstCatchableRT; n <= lastRT; n++ {
		sigs = append(sigs, syscall.Signal(n))
	}
	return sigs
}

// osSignalNames spells the Linux-only signals of osCaught; the real-time
// ones read "signal 35".
var osSignalNames = map[syscall.Signal]string{syscall.SIGSTKFLT: "SIGSTKFLT", syscall.SIGPWR: "SIGPWR"}
