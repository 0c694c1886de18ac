package proto

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zksim/zksim/zkapi"
)

// Request is one client request to a Machine: Create, Delete, Exists,
// GetData, SetData, GetChildren, Multi, Sync, AddWatch, RemoveWatches,
// SetWatches, Ping, GetACL, SetACL or AddAuth. Each has a deterministic
// String.
type Request interface {
	fmt.Stringer
	request()
}

// Create is ZooKeeper's create; the reply carries the created path.
type Create struct {
	Path string
	Data []byte
	Mode zkapi.CreateMode
	// TTLMillis is a TTL mode's TTL in ms (zkapi.CreateOp.TTLMillis), as
	// ZooKeeper's createTTL carries it.
	TTLMillis int64
	ACL       []zkapi.ACL // nil: zkapi.OpenACL
}

// GetACL is ZooKeeper's getACL: the node's ACL and Stat in the reply.
type GetACL struct{ Path string }

// SetACL is ZooKeeper's setACL; Version is checked against the node's
// Aversion.
type SetACL struct {
	Path    string
	ACL     []zkapi.ACL
	Version int32
}

// AddAuth is an auth packet: it adds an identity to the session's
// connection (ErrAuthFailed for a scheme without a provider). It is no
// transaction.
type AddAuth struct {
	Scheme string
	Data   []byte
}

// Delete is ZooKeeper's delete.
type Delete struct {
	Path    string
	Version int32
}

// Exists is ZooKeeper's exists; a missing node answers ErrNoNode, and a
// watch is left either way.
type Exists struct {
	Path  string
	Watch bool
}

// GetData is ZooKeeper's getData.
type GetData struct {
	Path  string
	Watch bool
}

// SetData is ZooKeeper's setData.
type SetData struct {
	Path    string
	Data    []byte
	Version int32
}

// GetChildren is ZooKeeper's getChildren2: children and the node's Stat.
type GetChildren struct {
	Path  string
	Watch bool
}

// Multi is ZooKeeper's multi over create, delete, setData and check.
type Multi struct{ Ops []zkapi.Op }

// Sync is ZooKeeper's sync.
type Sync struct{ Path string }

// SetWatches re-registers a reconnecting client's watches; the server fires
// at once the standard ones whose node changed after RelativeZxid.
// Persistent and PersistentRecursive (setWatches2) are re-registered as
// they are: nothing fires for them.
type SetWatches struct {
	RelativeZxid        int64
	Data                []string
	Exist               []string
	Child               []string
	Persistent          []string
	PersistentRecursive []string
}

// AddWatch is ZooKeeper 3.6+'s addWatch: a watch that stays after it
// fires, on Path (persistent: NodeCreated, NodeDeleted, NodeDataChanged
// and NodeChildrenChanged of Path) or, Recursive, on Path and every node
// below it (every event but NodeChildrenChanged). Path need not exist.
type AddWatch struct {
	Path      string
	Recursive bool
}

// RemoveWatches is removeWatches: the session's watches of a type on
// Path, whatever their mode, or ErrNoWatcher.
type RemoveWatches struct {
	Path string
	Type WatcherType
}

// WatcherType is the type of watch RemoveWatches (and checkWatches)
// names; the values are ZooKeeper's Watcher.WatcherType. Children means a
// watch of the child table (getChildren's, and persistent ones), Data one
// of the data table (exists', getData's, and persistent ones).
type WatcherType int32

// Watcher types. ZooKeeper 3.8 has no others: 4 and 5 (Persistent,
// PersistentRecursive) came in 3.9.
const (
	WatcherChildren WatcherType = 1
	WatcherData     WatcherType = 2
	WatcherAny      WatcherType = 3
)

func (t WatcherType) String() string {
	switch t {
	case WatcherChildren:
		return "Children"
	case WatcherData:
		return "Data"
	case WatcherAny:
		return "Any"
	}
	return fmt.Sprintf("WatcherType(%d)", int32(t))
}

// Ping keeps a session alive.
type Ping struct{}

func (Create) request()        {}
func (Delete) request()        {}
func (Exists) request()        {}
func (GetData) request()       {}
func (SetData) request()       {}
func (GetChildren) request()   {}
func (Multi) request()         {}
func (Sync) request()          {}
func (SetWatches) request()    {}
func (AddWatch) request()      {}
func (RemoveWatches) request() {}
func (Ping) request()          {}
func (GetACL) request()        {}
func (SetACL) request()        {}
func (AddAuth) request()       {}

func (r Create) String() string {
	s := fmt.Sprintf("create %s %s %s", r.Path, quote(r.Data), r.Mode)
	if r.TTLMillis != 0 {
		s += fmt.Sprintf(" ttl=%dms", r.TTLMillis)
	}
	if r.ACL != nil {
		s += " acl=" + aclString(r.ACL)
	}
	return s
}
func (r GetACL) String() string { return "getacl " + r.Path }
func (r SetACL) String() string {
	return fmt.Sprintf("setacl %s %s v=%d", r.Path, aclString(r.ACL), r.Version)
}

// String leaves the auth data out: it may be a password.
func (r AddAuth) String() string { return "addauth " + r.Scheme }
func (r Delete) String() string  { return fmt.Sprintf("delete %s v=%d", r.Path, r.Version) }
func (r Exists) String() string  { return "exists " + r.Path + watchFlag(r.Watch) }
func (r GetData) String() string { return "get " + r.Path + watchFlag(r.Watch) }
func (r SetData) String() string {
	return fmt.Sprintf("set %s %s v=%d", r.Path, quote(r.Data), r.Version)
}
func (r GetChildren) String() string { return "children " + r.Path + watchFlag(r.Watch) }
func (r Sync) String() string        { return "sync " + r.Path }
func (Ping) String() string          { return "ping" }

func (r Multi) String() string {
	parts := make([]string, len(r.Ops))
	for i, op := range r.Ops {
		parts[i] = opString(op)
	}
	return "multi [" + strings.Join(parts, "; ") + "]"
}

func (r SetWatches) String() string {
	s := fmt.Sprintf("setwatches z=%d data=%v exist=%v child=%v",
		r.RelativeZxid, r.Data, r.Exist, r.Child)
	if len(r.Persistent)+len(r.PersistentRecursive) > 0 {
		s += fmt.Sprintf(" persistent=%v recursive=%v", r.Persistent, r.PersistentRecursive)
	}
	return s
}

func (r AddWatch) String() string {
	if r.Recursive {
		return "addwatch " + r.Path + " recursive"
	}
	return "addwatch " + r.Path + " persistent"
}

func (r RemoveWatches) String() string {
	return "removewatches " + r.Path + " " + strings.ToLower(r.Type.String())
}

// Paths lists the nodes a request names: its path, or each op's path for
// a Multi, in order. SetWatches and Ping name none: SetWatches carries
// watches to re-register, not nodes to act on.
func Paths(req Request) []string {
	if p, ok := RequestPath(req); ok {
		return []string{p}
	}
	m, ok := req.(Multi)
	if !ok {
		return nil
	}
	var ps []string
	for _, op := range m.Ops {
		if op != nil {
			ps = append(ps, OpPath(op))
		}
	}
	return ps
}

// RequestPath is the one node a request other than Multi, SetWatches and
// Ping names; the client checks it before every request, so it builds
// nothing.
func RequestPath(req Request) (string, bool) {
	switch r := req.(type) {
	case Create:
		return r.Path, true
	case Delete:
		return r.Path, true
	case Exists:
		return r.Path, true
	case GetData:
		return r.Path, true
	case SetData:
		return r.Path, true
	case GetChildren:
		return r.Path, true
	case Sync:
		return r.Path, true
	case GetACL:
		return r.Path, true
	case SetACL:
		return r.Path, true
	case AddWatch:
		return r.Path, true
	case RemoveWatches:
		return r.Path, true
	}
	return "", false
}

// opString renders one Multi op the way the requests render.
func opString(op zkapi.Op) string {
	switch o := op.(type) {
	case zkapi.CreateOp:
		return Create{Path: o.Path, Data: o.Data, Mode: o.Mode, TTLMillis: o.TTLMillis, ACL: o.ACL}.String()
	case zkapi.DeleteOp:
		return Delete{Path: o.Path, Version: o.Version}.String()
	case zkapi.SetOp:
		return SetData{Path: o.Path, Data: o.Data, Version: o.Version}.String()
	case zkapi.CheckOp:
		return fmt.Sprintf("check %s v=%d", o.Path, o.Version)
	}
	return fmt.Sprintf("unknown op %T", op)
}

func watchFlag(w bool) string {
	if w {
		return " watch"
	}
	return ""
}

// quote renders data compactly: short data quoted, long data by length.
func quote(b []byte) string {
	if len(b) > 32 {
		return fmt.Sprintf("<%d bytes>", len(b))
	}
	return strconv.Quote(string(b))
}

// Reply is a Machine's answer to one request.
type Reply struct {
	Zxid     int64 // the zxid of the write, or the last applied zxid for a read
	Err      error // a zkapi sentinel, or nil
	Path     string
	Data     []byte
	Stat     zkapi.Stat
	Children []string
	Results  []zkapi.OpResult
	ACL      []zkapi.ACL // getACL's answer
}

// Notification is a watch event queued for a session, tagged with the zxid
// of the change that fired it, or -1 when SetWatches fired it on reconnect
// for changes the client missed.
type Notification struct {
	Zxid  int64
	Event zkapi.Event
}

func (n Notification) String() string { return fmt.Sprintf("%s z=%d", n.Event, n.Zxid) }

// String renders a reply deterministically, for traces.
func (r Reply) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "z=%d %s", r.Zxid, zkapi.Name(r.Err))
	if r.Path != "" {
		b.WriteString(" path=" + r.Path)
	}
	if r.Data != nil {
		b.WriteString(" data=" + quote(r.Data))
	}
	if r.Stat != (zkapi.Stat{}) {
		fmt.Fprintf(&b, " stat=%s", statString(r.Stat))
	}
	if r.Children != nil {
		fmt.Fprintf(&b, " children=%v", r.Children)
	}
	if r.ACL != nil {
		b.WriteString(" acl=" + aclString(r.ACL))
	}
	for i, res := range r.Results {
		fmt.Fprintf(&b, " [%d]%s", i, zkapi.Name(res.Err))
		if res.Path != "" {
			b.WriteString(":" + res.Path)
		}
	}
	return b.String()
}

// statString renders every Stat field compactly.
func statString(s zkapi.Stat) string {
	return fmt.Sprintf("{c=%d m=%d p=%d t=%d/%d v=%d cv=%d av=%d eph=%#x dl=%d nc=%d}",
		s.Czxid, s.Mzxid, s.Pzxid, s.Ctime, s.Mtime, s.Version, s.Cversion, s.Aversion,
		s.EphemeralOwner, s.DataLength, s.NumChildren)
}

// aclString renders an ACL as ParseACL reads it.
func aclString(acl []zkapi.ACL) string {
	parts := make([]string, len(acl))
	for i, a := range acl {
		parts[i] = a.String()
	}
	return strings.Join(parts, ",")
}
