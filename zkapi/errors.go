package zkapi

import (
	"errors"
	"fmt"
)

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

var codes = []struct {
	code int32
	err  error
}{
	{-2, ErrRuntimeInconsistency}, {-4, ErrConnectionLoss}, {-5, ErrMarshalling},
	{-6, ErrUnimplemented}, {-7, ErrOperationTimeout}, {-8, ErrBadArguments},
	{-100, ErrAPIError}, {-101, ErrNoNode}, {-102, ErrNoAuth}, {-103, ErrBadVersion},
	{-108, ErrNoChildrenForEphemerals}, {-110, ErrNodeExists}, {-111, ErrNotEmpty},
	{-112, ErrSessionExpired}, {-114, ErrInvalidACL}, {-115, ErrAuthFailed},
	{-118, ErrSessionMoved}, {-121, ErrNoWatcher},
}

// Code returns ZooKeeper's numeric result code for err: 0 for nil, the code
// of the sentinel err wraps, or -1 (SystemError) for anything else.
func Code(err error) int32 {
	if err == nil {
		return 0
	}
	for _, c := range codes {
		if errors.Is(err, c.err) {
			return c.code
		}
	}
	return -1
}

// ErrorForCode returns the sentinel for a ZooKeeper result code, nil for 0,
// and a plain error naming the code for codes zkapi has no sentinel for.
func ErrorForCode(code int32) error {
	if code == 0 {
		return nil
	}
	for _, c := range codes {
		if c.code == code {
			return c.err
		}
	}
	return fmt.Errorf("zkapi: unknown result code %d", code)
}

// Sentinel returns the sentinel error that err wraps, or err itself when it
// wraps none. Useful for comparing outcomes across implementations.
func Sentinel(err error) error {
	if err == nil {
		return nil
	}
	for _, c := range codes {
		if errors.Is(err, c.err) {
			return c.err
		}
	}
	if errors.Is(err, ErrClosed) {
		return ErrClosed
	}
	return err
}

// OpError records the operation and path of a failed request.
type OpError struct {
	Op   string // "create", "delete", "exists", "get", "set", "children", "multi", "sync"
	Path string
	Err  error
}

func (e *OpError) Error() string { return e.Op + " " + e.Path + ": " + e.Err.Error() }

// Unwrap returns the underlying sentinel error.
func (e *OpError) Unwrap() error { return e.Err }

// Wrap returns err wrapped in an OpError, or nil if err is nil.
func Wrap(op, path string, err error) error {
	if err == nil {
		return nil
	}
	return &OpError{Op: op, Path: path, Err: err}
}

// Name returns ZooKeeper's short name for err's code ("NoNode",
// "ConnectionLoss"...), "OK" for nil, "Closed" for ErrClosed and
// "SystemError" for errors zkapi does not know.
func Name(err error) string {
	if err == nil {
		return "OK"
	}
	if errors.Is(err, ErrClosed) {
		return "Closed"
	}
	if n, ok := codeNames[Code(err)]; ok {
		return n
	}
	return "SystemError"
}

var codeNames = map[int32]string{
	-2: "RuntimeInconsistency", -4: "ConnectionLoss", -5: "MarshallingError",
	-6: "Unimplemented", -7: "OperationTimeout", -8: "BadArguments",
	-100: "APIError", -101: "NoNode", -102: "NoAuth", -103: "BadVersion",
	-108: "NoChildrenForEphemerals", -110: "NodeExists", -111: "NotEmpty",
	-112: "SessionExpired", -114: "InvalidACL", -115: "AuthFailed",
	-118: "SessionMoved", -121: "NoWatcher",
}
