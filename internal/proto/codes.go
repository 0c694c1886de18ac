package proto

import (
	"errors"
	"fmt"

	"github.com/zksim/zksim/zkapi"
)

// codes pairs each zkapi sentinel with ZooKeeper's result code
// (KeeperException.Code), as the codec writes it in a reply header.
var codes = []struct {
	code int32
	err  error
}{
	{-2, zkapi.ErrRuntimeInconsistency}, {-4, zkapi.ErrConnectionLoss}, {-5, zkapi.ErrMarshalling},
	{-6, zkapi.ErrUnimplemented}, {-7, zkapi.ErrOperationTimeout}, {-8, zkapi.ErrBadArguments},
	{-100, zkapi.ErrAPIError}, {-101, zkapi.ErrNoNode}, {-102, zkapi.ErrNoAuth}, {-103, zkapi.ErrBadVersion},
	{-108, zkapi.ErrNoChildrenForEphemerals}, {-110, zkapi.ErrNodeExists}, {-111, zkapi.ErrNotEmpty},
	{-112, zkapi.ErrSessionExpired}, {-114, zkapi.ErrInvalidACL}, {-115, zkapi.ErrAuthFailed},
	{-118, zkapi.ErrSessionMoved}, {-121, zkapi.ErrNoWatcher},
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
// wraps none: for comparing outcomes across implementations.
func Sentinel(err error) error {
	if err == nil {
		return nil
	}
	for _, c := range codes {
		if errors.Is(err, c.err) {
			return c.err
		}
	}
	if errors.Is(err, zkapi.ErrClosed) {
		return zkapi.ErrClosed
	}
	return err
}

// OpError records the operation and path of a failed request: every
// Conn of the module (fakezk's, the simulator's, zkapi/gozk's) wraps a
// failure's sentinel in one, so that its message names both.
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
