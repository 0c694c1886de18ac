package zkapi

import "fmt"

// CreateMode is the kind of znode Create makes; the values are ZooKeeper's
// CreateMode flags.
type CreateMode int32

// Create modes.
const (
	Persistent           CreateMode = 0
	Ephemeral            CreateMode = 1
	PersistentSequential CreateMode = 2
	EphemeralSequential  CreateMode = 3
	Container            CreateMode = 4
	// PersistentWithTTL is a persistent node that the server deletes once
	// it has had no children and no change for its TTL (see TTLCreator).
	// A server without zookeeper.extendedTypesEnabled answers
	// ErrUnimplemented.
	PersistentWithTTL CreateMode = 5
	// PersistentSequentialWithTTL is PersistentWithTTL with a sequence
	// number.
	PersistentSequentialWithTTL CreateMode = 6
)

func (m CreateMode) String() string {
	switch m {
	case Persistent:
		return "persistent"
	case Ephemeral:
		return "ephemeral"
	case PersistentSequential:
		return "persistent-sequential"
	case EphemeralSequential:
		return "ephemeral-sequential"
	case Container:
		return "container"
	case PersistentWithTTL:
		return "persistent-ttl"
	case PersistentSequentialWithTTL:
		return "persistent-sequential-ttl"
	}
	return fmt.Sprintf("CreateMode(%d)", int32(m))
}

// Stat is a znode's metadata, field for field ZooKeeper's Stat.
type Stat struct {
	Czxid          int64 // zxid of the create
	Mzxid          int64 // zxid of the last setData (or the create)
	Ctime          int64 // creation time, ms since 1970 (fakezk: see its Config.EpochMillis)
	Mtime          int64 // last modification time, ms, as Ctime
	Version        int32 // number of setData calls
	Cversion       int32 // number of child changes, as the server reports it
	Aversion       int32 // number of setACL calls
	EphemeralOwner int64 // owning session, 0 for persistent nodes
	DataLength     int32
	NumChildren    int32
	Pzxid          int64 // zxid of the last child change (or the create)
}

// EventType is the kind of a watch event; values are ZooKeeper's.
type EventType int32

// Watch event types.
const (
	EventNodeCreated         EventType = 1
	EventNodeDeleted         EventType = 2
	EventNodeDataChanged     EventType = 3
	EventNodeChildrenChanged EventType = 4
	// EventNotWatching: the watch will never fire (session expired or Conn
	// closed); Event.Err says why.
	EventNotWatching EventType = -2
)

func (t EventType) String() string {
	switch t {
	case EventNodeCreated:
		return "NodeCreated"
	case EventNodeDeleted:
		return "NodeDeleted"
	case EventNodeDataChanged:
		return "NodeDataChanged"
	case EventNodeChildrenChanged:
		return "NodeChildrenChanged"
	case EventNotWatching:
		return "NotWatching"
	}
	return fmt.Sprintf("EventType(%d)", int32(t))
}

// Event is one watch notification.
type Event struct {
	Type EventType
	Path string
	Err  error // set for EventNotWatching
}

func (e Event) String() string {
	if e.Err != nil {
		return fmt.Sprintf("%s %s (%v)", e.Type, e.Path, e.Err)
	}
	return e.Type.String() + " " + e.Path
}

// State is a session's state as the client sees it.
type State int32

// Session states.
const (
	StateConnecting   State = iota // no session yet, or reconnecting
	StateConnected                 // the session is live and the link is up
	StateDisconnected              // link down; the session may still live on the server
	StateExpired                   // the server expired the session
	StateClosed                    // the client closed the Conn
)

func (s State) String() string {
	switch s {
	case StateConnecting:
		return "Connecting"
	case StateConnected:
		return "Connected"
	case StateDisconnected:
		return "Disconnected"
	case StateExpired:
		return "Expired"
	case StateClosed:
		return "Closed"
	}
	return fmt.Sprintf("State(%d)", int32(s))
}

// Session is a snapshot of a Conn's session. Seq increases by one at every
// change the Conn reports, so WaitSession(ctx, s.Seq) waits for the next one.
type Session struct {
	ID    int64
	State State
	Seq   uint64
}

func (s Session) String() string {
	return fmt.Sprintf("session %#x %s (#%d)", s.ID, s.State, s.Seq)
}

// Lost reports whether the session with the given ID is gone for good as
// seen in s: expired, closed, or replaced by a new session.
func (s Session) Lost(id int64) bool {
	return s.State == StateExpired || s.State == StateClosed || s.ID != id
}
