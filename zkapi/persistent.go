package zkapi

import "context"

// PersistentWatcher is implemented by the Conns that can set ZooKeeper
// 3.6+'s persistent watches (addWatch): fakezk's, the simulator's and
// zkapi/gozk's. It is apart from Conn so that Conn stays what every
// ZooKeeper client offers; a recipe that needs it asserts it:
//
//	pw, ok := conn.(zkapi.PersistentWatcher)
type PersistentWatcher interface {
	// AddWatch sets a watch that stays after it fires, on path, which
	// need not exist: a persistent one sees NodeCreated, NodeDeleted,
	// NodeDataChanged and NodeChildrenChanged of path; a recursive one
	// sees NodeCreated, NodeDeleted and NodeDataChanged of path and of
	// every node below it, never NodeChildrenChanged.
	//
	// ZooKeeper 3.8 keeps one watch per session, path and kind (data,
	// children), and the last one set decides how it fires: a GetW or
	// ExistsW on a path with a persistent watch makes its data side
	// one-shot, ChildrenW its child side, and a persistent AddWatch on a
	// path with a recursive one ends the recursion. Use one kind of watch
	// per path and Conn.
	//
	// After a reconnect the watch is set again (setWatches2), but changes
	// made while the Conn was disconnected fire nothing: a recipe reads
	// again after its session reports Connected.
	AddWatch(ctx context.Context, path string, recursive bool) (PersistentWatch, error)
}

// PersistentWatch is a watch AddWatch set. Its events queue, in the
// order the server sent them, until Next takes them.
type PersistentWatch interface {
	// Next returns the oldest event not yet returned, waiting for one if
	// there is none. A queued event is returned even when ctx is done.
	// Once the queue is empty after the watch ended (Remove, session
	// expiry, Close), Next returns an EventNotWatching event whose Err is
	// ErrNoWatcher, ErrSessionExpired or ErrClosed, and no error, every
	// time. The error is ctx's.
	Next(ctx context.Context) (Event, error)
	// Remove ends the watch and asks the server to drop it
	// (removeWatches of any type on its path): the server then also drops
	// the Conn's one-shot watches on that path, which will not fire. With
	// another persistent watch of the Conn on the same path the server is
	// left alone. Removing a watch that has ended returns nil.
	Remove(ctx context.Context) error
}
