package fakezk

import (
	"context"

	"github.com/zksim/zksim/internal/zkclient"
	"github.com/zksim/zksim/zkapi"
)

// The request methods map each call to a Request and its Reply back as
// every client of a Machine does (zkclient.Calls), with the Conn as the
// transport. They are spelled out here, not embedded, so that the Conn's
// documentation lists them.

// calls is a Calls of its own for each call: goroutines share a Conn,
// and a Calls keeps the boxes of its last requests.
func (c *conn) calls() *zkclient.Calls { return &zkclient.Calls{T: c} }

// Create implements zkapi.Conn. A TTL mode is refused before anything is
// sent, as go-zookeeper's Create refuses it: TTL nodes go through
// CreateTTL.
func (c *conn) Create(ctx context.Context, path string, data []byte, mode zkapi.CreateMode) (string, error) {
	return c.calls().Create(ctx, path, data, mode)
}

// CreateTTL implements zkapi.TTLCreator as go-zookeeper's CreateTTL does:
// a mode other than a TTL mode is refused before anything is sent.
func (c *conn) CreateTTL(ctx context.Context, path string, data []byte, mode zkapi.CreateMode, ttlMillis int64) (string, error) {
	return c.calls().CreateTTL(ctx, path, data, mode, ttlMillis)
}

// CreateWithACL implements zkapi.ACLConn.
func (c *conn) CreateWithACL(ctx context.Context, path string, data []byte, mode zkapi.CreateMode, acl []zkapi.ACL) (string, error) {
	return c.calls().CreateWithACL(ctx, path, data, mode, acl)
}

// Delete implements zkapi.Conn.
func (c *conn) Delete(ctx context.Context, path string, version int32) error {
	return c.calls().Delete(ctx, path, version)
}

// Exists implements zkapi.Conn.
func (c *conn) Exists(ctx context.Context, path string) (zkapi.Stat, bool, error) {
	return c.calls().Exists(ctx, path)
}

// ExistsW implements zkapi.Conn.
func (c *conn) ExistsW(ctx context.Context, path string) (zkapi.Stat, bool, zkapi.Watch, error) {
	return c.calls().ExistsW(ctx, path)
}

// Get implements zkapi.Conn.
func (c *conn) Get(ctx context.Context, path string) ([]byte, zkapi.Stat, error) {
	return c.calls().Get(ctx, path)
}

// GetW implements zkapi.Conn.
func (c *conn) GetW(ctx context.Context, path string) ([]byte, zkapi.Stat, zkapi.Watch, error) {
	return c.calls().GetW(ctx, path)
}

// Set implements zkapi.Conn.
func (c *conn) Set(ctx context.Context, path string, data []byte, version int32) (zkapi.Stat, error) {
	return c.calls().Set(ctx, path, data, version)
}

// Children implements zkapi.Conn.
func (c *conn) Children(ctx context.Context, path string) ([]string, zkapi.Stat, error) {
	return c.calls().Children(ctx, path)
}

// ChildrenW implements zkapi.Conn.
func (c *conn) ChildrenW(ctx context.Context, path string) ([]string, zkapi.Stat, zkapi.Watch, error) {
	return c.calls().ChildrenW(ctx, path)
}

// Multi implements zkapi.Conn; results are per op, success or failure.
func (c *conn) Multi(ctx context.Context, ops ...zkapi.Op) ([]zkapi.OpResult, error) {
	return c.calls().Multi(ctx, ops...)
}

// Sync implements zkapi.Conn.
func (c *conn) Sync(ctx context.Context, path string) error {
	return c.calls().Sync(ctx, path)
}

// GetACL implements zkapi.ACLConn.
func (c *conn) GetACL(ctx context.Context, path string) ([]zkapi.ACL, zkapi.Stat, error) {
	return c.calls().GetACL(ctx, path)
}

// SetACL implements zkapi.ACLConn.
func (c *conn) SetACL(ctx context.Context, path string, acl []zkapi.ACL, version int32) (zkapi.Stat, error) {
	return c.calls().SetACL(ctx, path, acl, version)
}
