package gozk

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/internal/proto"
	"github.com/zksim/zksim/zkapi"
)

// ErrConfig is wrapped by every error Config validation returns.
var ErrConfig = errors.New("gozk: invalid config")

// sentinels maps go-zookeeper's errors to zkapi's. Server codes go-zookeeper
// has no sentinel for arrive as "unknown error: <code>" and are handled by
// codeError.
var sentinels = []struct{ zk, zkapi error }{
	// The link to the server broke; the request may have been applied.
	{zk.ErrConnectionClosed, zkapi.ErrConnectionLoss},
	// Every server was tried without success; the request was not sent.
	{zk.ErrNoServer, zkapi.ErrConnectionLoss},
	// Flushed to pending requests and watches when the client is closed.
	{zk.ErrClosing, zkapi.ErrClosed},
	// go-zookeeper validates paths before sending (ErrInvalidPath); the
	// real server answers BadArguments (-8) for the same paths
	// (PathUtils.validatePath). Measured on 3.8.0 through Multi, which
	// go-zookeeper does not validate: check and create answer
	// BadArguments, except that a create whose parent path is itself
	// malformed ("/a//b", "/a/./b") and a delete of any path with a
	// leading '/' and no NUL answer NoNode, the node lookup coming first.
	{zk.ErrInvalidPath, zkapi.ErrBadArguments},
	{zk.ErrInvalidFlags, zkapi.ErrBadArguments},
	{zk.ErrBadArguments, zkapi.ErrBadArguments},
	// The request did not fit go-zookeeper's send buffer (1.5 MiB) and was
	// not sent. The Java client would send it and the server would close
	// the connection; here it is certain that nothing was applied.
	{zk.ErrShortBuffer, zkapi.ErrMarshalling},
	{zk.ErrSessionExpired, zkapi.ErrSessionExpired},
	{zk.ErrNoNode, zkapi.ErrNoNode},
	{zk.ErrNodeExists, zkapi.ErrNodeExists},
	{zk.ErrNotEmpty, zkapi.ErrNotEmpty},
	{zk.ErrBadVersion, zkapi.ErrBadVersion},
	{zk.ErrNoChildrenForEphemerals, zkapi.ErrNoChildrenForEphemerals},
	{zk.ErrAPIError, zkapi.ErrAPIError},
	{zk.ErrNoAuth, zkapi.ErrNoAuth},
	{zk.ErrInvalidACL, zkapi.ErrInvalidACL},
	{zk.ErrAuthFailed, zkapi.ErrAuthFailed},
	{zk.ErrSessionMoved, zkapi.ErrSessionMoved},
}

// sentinelOf returns the zkapi sentinel for a go-zookeeper error, or nil if
// there is none.
func sentinelOf(err error) error {
	for _, s := range sentinels {
		if errors.Is(err, s.zk) {
			return s.zkapi
		}
	}
	if s := codeError(err); s != nil {
		return s
	}
	if isLinkError(err) {
		return zkapi.ErrConnectionLoss
	}
	return nil
}

// codeError recognises go-zookeeper's ErrCode.toError for codes it has no
// sentinel for, such as RuntimeInconsistency (-2) or Unimplemented (-6).
func codeError(err error) error {
	var code int32
	if _, scanErr := fmt.Sscanf(err.Error(), "unknown error: %d", &code); scanErr != nil {
		return nil
	}
	s := proto.ErrorForCode(code)
	if code == -1 || proto.Code(s) != code {
		return nil // SystemError, or a code zkapi has no sentinel for either
	}
	return s
}

// isLinkError reports errors of the network connection itself, which
// go-zookeeper passes on raw when writing a request fails.
func isLinkError(err error) bool {
	var netErr net.Error
	switch {
	case errors.As(err, &netErr), errors.Is(err, net.ErrClosed),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return true
	}
	return strings.HasPrefix(err.Error(), "zk: could not connect")
}

// mapError translates a go-zookeeper error. The result matches the zkapi
// sentinel and the original with errors.Is. When the Conn is closing, a
// request cut off by the close fails with zkapi.ErrClosed rather than
// ErrConnectionLoss.
func mapError(err error, closing bool) error {
	if err == nil {
		return nil
	}
	s := sentinelOf(err)
	if closing && (s == zkapi.ErrConnectionLoss || s == zkapi.ErrClosed) {
		s = zkapi.ErrClosed
	}
	if s == nil {
		return err
	}
	return fmt.Errorf("%w (%w)", s, err)
}

// bareError is mapError for places that hold an outcome rather than report a
// failure (Multi's per-op results, watch events): the sentinel itself when
// there is one, so that == and trace output stay simple.
func bareError(err error) error {
	if err == nil {
		return nil
	}
	if s := sentinelOf(err); s != nil {
		return s
	}
	return err
}
