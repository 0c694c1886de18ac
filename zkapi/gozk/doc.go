// Package gozk adapts github.com/go-zookeeper/zk (v1.0.4) to zkapi.Conn, so
// that code written against zkapi runs on a real ZooKeeper ensemble.
//
// # Model
//
// A Conn owns one *zk.Conn. Requests are go-zookeeper calls, translated both
// ways: create modes to flags (Container through CreateContainer), zk.Stat to
// zkapi.Stat field by field, watch channels to zkapi.Watch values, zkapi ops
// to go-zookeeper's Multi requests, and go-zookeeper's errors to zkapi's
// sentinels. Every returned error names the operation and path;
// errors.Is matches the zkapi sentinel and also the original
// go-zookeeper error, which stays visible in the message. Errors go-zookeeper
// has no sentinel for (it reports them as "unknown error: <code>") are
// mapped by their code; anything else is returned wrapped but unchanged.
//
// Dial and DialContext connect and wait for the first session; FromConn
// adopts a *zk.Conn the caller made. Close ends the session and waits until
// go-zookeeper's goroutines have stopped; afterwards every call returns
// zkapi.ErrClosed.
//
// # Cancellation
//
// Every method checks its ctx first and returns ctx's error, wrapped, if it
// is done. A request that has been handed to go-zookeeper cannot be
// withdrawn, so the method then waits for its outcome whatever ctx does:
// go-zookeeper answers or fails every request, normally within the session
// timeout (it drops a silent connection after 2/3 of it) or after trying every
// server once. Returning early would turn a known outcome into an unknown
// one. Waiting for a watch (Watch.Wait) or a session change (WaitSession)
// honours ctx.
//
// # Sessions
//
// One goroutine per Conn reads go-zookeeper's event channel until
// go-zookeeper closes it. The Conn keeps a zkapi.Session snapshot whose Seq
// grows by one at every change:
//
//	go-zookeeper state          snapshot
//	StateHasSession             {c.SessionID(), Connected}
//	StateDisconnected,
//	StateConnecting,
//	StateConnected (TCP only)   {id, Disconnected} if it was Connected
//	StateExpired                {old id, Expired}
//	Close                       {id, Closed}
//
// Before the first session the snapshot is {0, Connecting}.
//
// When the server has expired the session, go-zookeeper learns it on
// reconnecting and then silently opens a NEW session on the same *zk.Conn.
// The Conn reports both: first {old, Expired}, then {new, Connected}, each
// with its own Seq. It never skips the Expired snapshot: if go-zookeeper's
// Expired event was lost (its event channel drops events when full), a
// session ID change produces it anyway. Pending watches end with
// EventNotWatching and zkapi.ErrSessionExpired. Code that owns ephemeral
// nodes must therefore compare session IDs (zkapi.Session.Lost), not merely
// wait for StateConnected.
//
// WaitSession(ctx, seq) returns the snapshot numbered seq+1 while the Conn
// still remembers it (the last 64 are kept), otherwise the oldest it
// remembers, so a caller that steps through snapshots sees every transition.
// Session returns the latest.
//
// Dial registers an event callback with go-zookeeper and updates the
// snapshot synchronously, so no transition can be lost. FromConn can only
// read the event channel the caller passes, which go-zookeeper fills without
// blocking and drops events from when it is full (6 events; every
// invalidated watch also takes a slot). The ID-change rule above still
// reports an expiry, but a short Disconnected spell may go unreported.
//
// # Persistent watches
//
// Conn implements zkapi.PersistentWatcher although go-zookeeper v1.0.4
// knows nothing of addWatch: a Conn made by Dial wraps each connection
// go-zookeeper dials, writes addWatch, removeWatches and (on reconnect)
// setWatches2 between go-zookeeper's frames, and takes their replies out
// of the stream before go-zookeeper reads it (persistent.go). A Conn made
// by FromConn cannot: its AddWatch answers zkapi.ErrUnimplemented.
//
// Caveats inherited from go-zookeeper v1.0.4:
//   - A request issued while disconnected is queued and sent on the next
//     connection, which after an expiry belongs to the new session; an
//     ephemeral node created that way is owned by the new session.
//   - Whenever its reconnection attempts come back round to the server it
//     last had a session with, go-zookeeper fails the queued requests
//     (ErrConnectionLoss) and sleeps a second. With a single server that is
//     every attempt, so a standalone client fails queued requests at once
//     and reconnects only a second after a disconnection, and again a
//     second after learning of an expiry.
package gozk
