package conformance

import (
	"context"

	"github.com/zksim/zksim/zkapi"
)

// Target is a ZooKeeper under test.
type Target interface {
	// Connect opens a new session.
	Connect(ctx context.Context) (zkapi.Conn, error)
	// Expire makes the server expire c's current session. A connected c
	// has a new session when Expire returns; a disconnected one learns on
	// Reconnect.
	Expire(ctx context.Context, c zkapi.Conn) error
	// Disconnect cuts c's link to the server and returns once c has
	// noticed; the session lives on until it times out.
	Disconnect(ctx context.Context, c zkapi.Conn) error
	// Reconnect restores c's link and returns once c is connected again,
	// to its old session or, if that expired, a new one.
	Reconnect(ctx context.Context, c zkapi.Conn) error
	// Settle returns once every watch event caused so far has reached the
	// given conns (a real server needs a round trip on each).
	Settle(ctx context.Context, conns []zkapi.Conn) error
}
