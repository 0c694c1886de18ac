package main

import (
	"context"
	"errors"
	"time"

	"github.com/zksim/zksim/recipe"
	"github.com/zksim/zksim/zkapi"
)

// closeGrace bounds closing the connection: go-zookeeper's Close waits
// for its I/O loop, which may sit in a read with a long deadline.
const closeGrace = 2 * time.Second

// errReleaseTimeout: the release did not finish within the session
// timeout. The server has expired the session by then (or will, once it
// is back), and the lock node with it.
var errReleaseTimeout = errors.New("no answer to the release within the session timeout; the lock node goes when the server expires the session")

// bounded waits until done is closed, for at most limit. Past it, it
// closes conn, which ends every retry loop waiting for the link (the
// queue's leave retries through connection loss until then, on purpose:
// CURATOR-202), and waits closeGrace more. It reports whether done was
// closed in time.
func bounded(conn zkapi.Conn, limit time.Duration, done <-chan struct{}) bool {
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
	}
	closeWithin(conn, closeGrace)
	select {
	case <-done:
	case <-time.After(closeGrace):
	}
	return false
}

// closeWithin closes conn, waiting at most d for it.
func closeWithin(conn zkapi.Conn, d time.Duration) {
	done := make(chan struct{})
	go func() {
		conn.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(d):
	}
}

// release releases l within limit (see bounded).
func release(conn zkapi.Conn, l recipe.Lease, limit time.Duration) error {
	var err error
	done := make(chan struct{})
	go func() {
		err = l.Release(context.Background())
		close(done)
	}()
	if !bounded(conn, limit, done) {
		return errReleaseTimeout
	}
	return err
}

// leaveQueue waits for an acquire whose ctx was cancelled to end: it
// deletes its queue node on the way out. An acquire that won the lock
// just before is released. Both are bounded by limit (see bounded).
func leaveQueue(conn zkapi.Conn, o options, got <-chan taken) {
	done := make(chan struct{})
	var t taken
	go func() {
		t = <-got
		close(done)
	}()
	if bounded(conn, o.session, done) && t.err == nil {
		release(conn, t.l, o.session)
	}
}
