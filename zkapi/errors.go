package zkapi

import "errors"

// Sentinel errors, one per ZooKeeper result code a client can meet. The
// number in each comment is ZooKeeper's KeeperException.Code.
var (
	ErrRuntimeInconsistency    = errors.New("zkapi: runtime inconsistency")                 // -2
	ErrConnectionLoss          = errors.New("zkapi: connection loss")                       // -4
	ErrMarshalling             = errors.New("zkapi: marshalling error")                     // -5
	ErrUnimplemented           = errors.New("zkapi: unimplemented")                         // -6
	ErrOperationTimeout        = errors.New("zkapi: operation timeout")                     // -7
	ErrBadArguments            = errors.New("zkapi: bad arguments")                         // -8
	ErrAPIError                = errors.New("zkapi: api error")                             // -100
	ErrNoNode                  = errors.New("zkapi: node does not exist")                   // -101
	ErrNoAuth                  = errors.New("zkapi: not authenticated")                     // -102
	ErrBadVersion              = errors.New("zkapi: version conflict")                      // -103
	ErrNoChildrenForEphemerals = errors.New("zkapi: ephemeral nodes may not have children") // -108
	ErrNodeExists              = errors.New("zkapi: node already exists")                   // -110
	ErrNotEmpty                = errors.New("zkapi: node has children")                     // -111
	ErrSessionExpired          = errors.New("zkapi: session expired")                       // -112
	ErrInvalidACL              = errors.New("zkapi: invalid ACL")                           // -114
	ErrAuthFailed              = errors.New("zkapi: authentication failed")                 // -115
	ErrSessionMoved            = errors.New("zkapi: session moved")                         // -118
	ErrNoWatcher               = errors.New("zkapi: no such watcher")                       // -121

	// ErrClosed is returned by calls on a Conn after Close; it is a client
	// state, not a server code.
	ErrClosed = errors.New("zkapi: connection closed by client")
)

// names are ZooKeeper's short names of the sentinels' codes.
var names = []struct {
	err  error
	name string
}{
	{ErrRuntimeInconsistency, "RuntimeInconsistency"}, {ErrConnectionLoss, "ConnectionLoss"},
	{ErrMarshalling, "MarshallingError"}, {ErrUnimplemented, "Unimplemented"},
	{ErrOperationTimeout, "OperationTimeout"}, {ErrBadArguments, "BadArguments"},
	{ErrAPIError, "APIError"}, {ErrNoNode, "NoNode"}, {ErrNoAuth, "NoAuth"},
	{ErrBadVersion, "BadVersion"}, {ErrNoChildrenForEphemerals, "NoChildrenForEphemerals"},
	{ErrNodeExists, "NodeExists"}, {ErrNotEmpty, "NotEmpty"},
	{ErrSessionExpired, "SessionExpired"}, {ErrInvalidACL, "InvalidACL"},
	{ErrAuthFailed, "AuthFailed"}, {ErrSessionMoved, "SessionMoved"},
	{ErrNoWatcher, "NoWatcher"},
}

// Name returns ZooKeeper's short name for err's code ("NoNode",
// "ConnectionLoss"...), "OK" for nil, "Closed" for ErrClosed and
// "SystemError" for errors zkapi does not know: a stable word for
// printing an outcome.
func Name(err error) string {
	if err == nil {
		return "OK"
	}
	if errors.Is(err, ErrClosed) {
		return "Closed"
	}
	for _, c := range names {
		if errors.Is(err, c.err) {
			return c.name
		}
	}
	return "SystemError"
}
