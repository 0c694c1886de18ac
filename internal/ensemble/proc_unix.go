//go:build unix

package ensemble

import (
	"os"
	"syscall"
)

// The signals of Pause, Resume and Stop.
var (
	sigStop os.Signal = syscall.SIGSTOP
	sigCont os.Signal = syscall.SIGCONT
	sigTerm os.Signal = syscall.SIGTERM
)
