package main

import (
	"errors"
	"net"
	"syscall"
	"time"
)

// dialNoSigpipe dials a ZooKeeper server for zklock. zklock catches
// SIGPIPE to pass it on to its command (caught), and a program that
// catches SIGPIPE gets one from every write to a socket whose peer has
// gone, not only from kill(2) (os/signal): a server that died mid-write
// would end zklock while it connects, or signal its command while it
// runs. So its sockets write with MSG_NOSIGNAL: such a write fails with
// EPIPE, which go-zookeeper takes as a lost connection, and a SIGPIPE
// zklock receives is one somebody sent.
func dialNoSigpipe(network, addr string, timeout time.Duration) (net.Conn, error) {
	c, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c, nil
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		c.Close()
		return nil, err
	}
	return &noSigpipeConn{TCPConn: tc, raw: raw}, nil
}

// noSigpipeConn is a TCP connection whose writes raise no SIGPIPE.
type noSigpipeConn struct {
	*net.TCPConn
	raw syscall.RawConn
}

// Write sends all of b with MSG_NOSIGNAL, waiting for the socket to take
// more as net.Conn's Write does (and as its deadline allows).
func (c *noSigpipeConn) Write(b []byte) (int, error) {
	sent := 0
	var werr error
	err := c.raw.Write(func(fd uintptr) bool {
		for sent < len(b) {
			n, err := syscall.SendmsgN(int(fd), b[sent:], nil, nil, syscall.MSG_NOSIGNAL)
			if errors.Is(err, syscall.EAGAIN) {
				return false // wait until writable
			}
			if err != nil {
				werr = err
				return true
			}
			sent += n
		}
		return true
	})
	if werr != nil {
		return sent, &net.OpError{Op: "write", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: werr}
	}
	return sent, err
}
