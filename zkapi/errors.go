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
	name string
}{
	{-2, ErrRuntimeInconsistency, "RuntimeInconsistency"}, {-4, ErrConnectionLoss, "ConnectionLoss"},
	{-5, ErrMarshalling, "MarshallingError"}, {-6, ErrUnimplemented, "Unimplemented"},
	{-7, ErrOperationTimeout, "OperationTimeout"}, {-8, ErrBadArguments, "BadArguments"},
	{-100, ErrAPIError, "APIError"}, {-101, ErrNoNode, "NoNode"}, {-102, ErrNoAuth, "NoAuth"},
	{-103, ErrBadVersion, "BadVersion"}, {-108, ErrNoChildrenForEphemerals, "NoChildrenForEphemerals"},
	{-110, ErrNodeExists, "NodeExists"}, {-111, ErrNotEmpty, "NotEmpty"},
	{-112, ErrSessionExpired, "SessionExpired"}, {-114, ErrInvalidACL, "InvalidACL"},
	{-115, ErrAuthFailed, "AuthFailed"}, {-118, ErrSessionMoved, "SessionMoved"},
	{-121, ErrNoWatcher, "NoWatcher"},
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
	for _, c := range codes {
		if errors.Is(err, c.err) {
			return c.name
		}
	}
	return "SystemError"
}
