//go:build !linux

package main

import (
	"os"
	"syscall"
)

// osCaught is empty where the POSIX list is all: the signals of other
// systems beyond it (EMT, INFO, LWP, ...) are not taken up here.
func osCaught() []os.Signal { return nil }

// osSignalNames is empty: signalNames has every signal of caught.
var osSignalNames = map[syscall.Signal]string{}
