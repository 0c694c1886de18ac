//go:build !unix

package zktest

import (
	"errors"
	"testing"
)

var errUnsupported = errors.New("zktest: signalling servers needs a unix system")

func kill(int) error { return errUnsupported }

func processAlive(int, string) bool { return false }

func lockFile(testing.TB, string, bool) {}
