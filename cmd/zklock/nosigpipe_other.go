//go:build !linux

package main

import (
	"net"
	"time"
)

// dialNoSigpipe is net.DialTimeout: only Linux has MSG_NOSIGNAL for a
// socket's writes (nosigpipe_linux.go).
func dialNoSigpipe(network, addr string, timeout time.Duration) (net.Conn, error) {
	return net.DialTimeout(network, addr, timeout)
}
