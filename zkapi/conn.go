package zkapi

import "context"

// AnyVersion matches every version in Delete, Set and CheckOp.
const AnyVersion int32 = -1

// Conn is a ZooKeeper client bound to one session at a time. Methods are safe
// for concurrent use. Paths are absolute; a sequential Create returns the
// name the server chose.
type Conn interface {
	Create(ctx context.Context, path string, data []byte, mode CreateMode) (string, error)
	Delete(ctx context.Context, path string, version int32) error
	// Exists reports whether path exists; a missing node is not an error.
	Exists(ctx context.Context, path string) (Stat, bool, error)
	// ExistsW is Exists leaving a watch: NodeCreated if the node is missing,
	// NodeDataChanged or NodeDeleted if it exists.
	ExistsW(ctx context.Context, path string) (Stat, bool, Watch, error)
	Get(ctx context.Context, path string) ([]byte, Stat, error)
	// GetW is Get leaving a data watch; it leaves none if the node is missing.
	GetW(ctx context.Context, path string) ([]byte, Stat, Watch, error)
	Set(ctx context.Context, path string, data []byte, version int32) (Stat, error)
	// Children lists path's children in no particular order, with path's Stat.
	Children(ctx context.Context, path string) ([]string, Stat, error)
	// ChildrenW is Children leaving a child watch (NodeChildrenChanged or
	// NodeDeleted); it leaves none if the node is missing.
	ChildrenW(ctx context.Context, path string) ([]string, Stat, Watch, error)
	// Multi applies ops atomically: all or none. On failure the error wraps
	// the failing op's sentinel; results are per op when the transport
	// reports them (ZooKeeper: earlier ops OK, the failing one its code,
	// later ones ErrRuntimeInconsistency) and may be nil otherwise.
	Multi(ctx context.Context, ops ...Op) ([]OpResult, error)
	// Sync makes the server this Conn reads from catch up with the leader.
	Sync(ctx context.Context, path string) error

	// Session returns the current session snapshot without blocking.
	Session() Session
	// WaitSession blocks until the session snapshot's Seq exceeds seq, and
	// returns the new snapshot, or ctx's error.
	WaitSession(ctx context.Context, seq uint64) (Session, error)
	// Close ends the session (its ephemerals go at once) and the Conn.
	Close() error
}

// TTLCreator is implemented by the Conns that can create TTL nodes
// (fakezk's and go-zookeeper's): a second interface, so that Conn stays
// what every recipe needs.
type TTLCreator interface {
	// CreateTTL creates a node of a TTL mode (PersistentWithTTL or
	// PersistentSequentialWithTTL); any other mode is ErrBadArguments.
	// The server deletes the node once it has no children and its mtime
	// is more than ttlMillis old, at its next container check. ttlMillis
	// must be 1 to 2^40-1, about 34.8 years (ErrBadArguments otherwise). A server
	// without extended types answers ErrUnimplemented.
	CreateTTL(ctx context.Context, path string, data []byte, mode CreateMode, ttlMillis int64) (string, error)
}

// Watch is a one-shot watch left by ExistsW, GetW or ChildrenW.
type Watch interface {
	// Wait blocks until the watch fires and returns its event. After
	// session expiry or Close it returns an EventNotWatching event whose Err
	// is ErrSessionExpired or ErrClosed, and no error. The error is ctx's.
	// Calling Wait again returns the same event. A watch that has fired
	// answers even when ctx is already done, so Wait with a cancelled ctx
	// polls.
	Wait(ctx context.Context) (Event, error)
}

// Op is one operation of a Multi: CreateOp, DeleteOp, SetOp or CheckOp.
type Op interface{ op() }

// CreateOp creates a node in a Multi.
type CreateOp struct {
	Path string
	Data []byte
	Mode CreateMode
	// TTLMillis is the node's TTL in ms for a TTL mode (1 to 2^40-1);
	// 0 for any other mode. go-zookeeper cannot send a
	// TTL create in a multi, so its adapter, and fakezk's Conn that
	// answers as it does, refuse one with ErrBadArguments; the wire
	// server applies one as ZooKeeper does.
	TTLMillis int64
	ACL       []ACL // nil: OpenACL (see ACLConn.CreateWithACL)
}

// DeleteOp deletes a node in a Multi.
type DeleteOp struct {
	Path    string
	Version int32
}

// SetOp sets a node's data in a Multi.
type SetOp struct {
	Path    string
	Data    []byte
	Version int32
}

// CheckOp requires path to exist at Version (AnyVersion: merely to exist).
type CheckOp struct {
	Path    string
	Version int32
}

func (CreateOp) op() {}
func (DeleteOp) op() {}
func (SetOp) op()    {}
func (CheckOp) op()  {}

// OpResult is the outcome of one op of a Multi.
type OpResult struct {
	Path string // CreateOp: the created path
	Stat Stat   // SetOp: the new Stat
	Err  error  // nil when the op succeeded (or would have)
}
