//go:build !unix

package ensemble

import (
	"os"
	"syscall"
)

// Without unix signals a server can only be killed: Pause and Resume
// return ErrUnsupported, Stop kills at once.
var sigStop, sigCont, sigTerm os.Signal

func sysProcAttr() *syscall.SysProcAttr { return nil }
