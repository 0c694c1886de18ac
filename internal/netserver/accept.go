package netserver

import (
	"errors"
	"net"
	"time"
)

// The delays between Accept retries, as net/http's Server.Serve: 5 ms,
// doubling after each failure in a row, at most 1 s.
const (
	minAcceptDelay = 5 * time.Millisecond
	maxAcceptDelay = time.Second
)

// acceptBackoff is one accept loop's streak of failed Accepts.
type acceptBackoff struct {
	delay    time.Duration // 0: the last Accept succeeded
	failures int
}

// acceptFailed decides what a failed Accept means: nil after waiting out
// the backoff, so that the loop retries; the error to return when the
// server or the listener is closed.
//
// Every other error is taken as transient. The ones a host gives under
// load (EMFILE and ENFILE when the process or the system is out of file
// descriptors, ECONNABORTED for a connection reset in the backlog,
// ENOBUFS, ENOMEM) pass once connections close or memory frees, and the
// real server's accept thread keeps going through them; a loop that
// returned would leave the port open with nobody accepting, for good.
func (s *Server) acceptFailed(err error, b *acceptBackoff) error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	switch {
	case closed:
		return ErrClosed
	case errors.Is(err, net.ErrClosed):
		return err
	}
	if b.delay == 0 {
		b.delay = minAcceptDelay
		s.logf("accept failed: %v; retrying with backoff up to %v", err, maxAcceptDelay)
	} else {
		b.delay = min(2*b.delay, maxAcceptDelay)
	}
	b.failures++
	t := time.NewTimer(b.delay)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-s.done:
		return ErrClosed
	}
}

// succeeded ends a streak of failures, saying so once.
func (b *acceptBackoff) succeeded(s *Server) {
	if b.failures > 0 {
		s.logf("accepting again after %d failed accepts", b.failures)
	}
	*b = acceptBackoff{}
}
